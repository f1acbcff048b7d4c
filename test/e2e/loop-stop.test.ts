import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startVoiceLoop } from '../../src/app/compose/voice-loop.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createService } from '../../src/service/index.js';
import { startSim } from '../../src/sim/server.js';
import { createMemoryLogger } from '../../src/system/logger.js';
import { workDir } from '../helpers/loop.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';

describe('stopping the voice loop', () => {
  // The loop stops itself when its input ends; a caller's own stop() then returned at once,
  // before the player had finished its file, and the output WAV could be read unfinished.
  it('every stop() waits for the one stop: the output file is complete when it resolves', async () => {
    const sim = await startSim({ timing: FAST_TIMING });
    sim.script.transcript('Hello?').reply('Hello there.');
    const config = defaultConfig();
    const logger = createMemoryLogger('warn');
    const service = createService(config, { baseUrl: sim.url, apiKey: sim.apiKey }, logger);
    const output = join(workDir, 'stop-twice.wav');
    const loop = await startVoiceLoop(config, service, logger, { input: UTTERANCE, output, fast: true });
    try {
      await loop.done;
      await loop.stop();
      const wav = readFileSync(output);
      expect(wav.length).toBeGreaterThan(44);
      expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    } finally {
      await service.close();
      await sim.close();
    }
  });
});
