import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { cleanEnv } from '../helpers/cli.js';
import { RunningHark } from '../helpers/daemon.js';
import { composeWav, workDir } from '../helpers/loop.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ timing: FAST_TIMING });
});
afterAll(() => sim.close());

describe('hooks: a command at each moment (the board lights)', () => {
  it('a hook that sleeps holds up no reply; it runs with the moment and state, and none of the key', async () => {
    const dir = mkdtempSync(join(workDir, 'hooks-'));
    const moments = join(dir, 'moments');
    const environment = join(dir, 'environment');
    // Each hook says what it ran for, then sleeps far longer than a whole turn takes.
    const hook = `echo "$HARK_EVENT $HARK_STATE" >> ${moments}; env >> ${environment}; sleep 8`;
    sim.script.transcript('What time is it?').reply('It is noon. Time for lunch.');
    const input = await composeWav([{ path: UTTERANCE, fromMs: 300, toMs: 1800 }, 4000]);
    const hark = new RunningHark(
      ['run', '--input', input, '-o', join(dir, 'played.wav')],
      cleanEnv({
        HARK_SERVICE_BASE_URL: sim.url,
        HARK_API_KEY: sim.apiKey,
        HARK_WAKE_ENGINE: 'none',
        HARK_WEB_ENABLED: 'false',
        HARK_HOOKS_THINKING: hook,
        HARK_HOOKS_SPEAKING: hook,
        HARK_HOOKS_TIMEOUT_MS: '30000',
      }),
    );
    try {
      const turn = await hark.line('turn');
      const latency = turn.latencyMs as Record<string, number>;
      // Waiting for the thinking hook alone would put the first sample 8 s after the end of speech.
      expect(latency.firstSamplePlayed).toBeLessThan(3000);
      expect(turn).toMatchObject({ reply: 'It is noon. Time for lunch.', interrupted: false });
      expect(await hark.exited).toMatchObject({ code: 0 });
    } finally {
      await hark.end();
    }
    // One hook at a time: the thinking hook was still sleeping through the whole reply, and was
    // stopped when hark stopped, with the speaking hook waiting behind it.
    expect(readFileSync(moments, 'utf8')).toBe('thinking thinking\n');
    const env = readFileSync(environment, 'utf8');
    expect(env).toMatch(/^HARK_EVENT=thinking$/m);
    expect(env).toMatch(/^HARK_STATE=thinking$/m);
    expect(env).not.toContain(sim.apiKey);
    expect(env).not.toMatch(/^HARK_API_KEY=/m);
    expect(hark.lines.some((l) => l.event === 'hook.failed')).toBe(false);
  });
});
