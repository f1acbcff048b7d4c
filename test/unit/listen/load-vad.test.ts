import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { loadVad } from '../../../src/listen/load-vad.js';
import { createMemoryLogger } from '../../../src/system/logger.js';

describe('loadVad', () => {
  it('loads Silero v5 by default', async () => {
    const vad = await loadVad(defaultConfig().vad, createMemoryLogger());
    expect(vad.name).toBe('silero');
    await vad.close();
  });

  it('falls back to the energy VAD when the model cannot load, and says so', async () => {
    const logger = createMemoryLogger();
    const vad = await loadVad(defaultConfig().vad, logger, { modelPath: '/nonexistent/silero.onnx' });
    expect(vad.name).toBe('energy');
    expect(logger.lines.find((l) => l.event === 'vad.fallback')).toMatchObject({
      level: 'warn',
      using: expect.stringMatching(/energy/),
    });
  });
});
