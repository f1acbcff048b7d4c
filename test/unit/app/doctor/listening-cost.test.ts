import { describe, expect, it } from 'vitest';
import { judgeListeningCost, measureListeningCost } from '../../../../src/app/doctor/listening-cost.js';
import { defaultConfig } from '../../../../src/config/schema.js';

describe("doctor's listening cost", () => {
  it('measures how long Silero and the wake word take to hear speech; nothing to measure when neither is on', async () => {
    const config = defaultConfig();
    const percent = await measureListeningCost(config);
    expect(percent).toBeGreaterThan(0);
    const off = {
      vad: { ...config.vad, engine: 'energy' as const },
      wake: { ...config.wake, engine: 'phrase' as const },
    };
    expect(await measureListeningCost(off)).toBeUndefined();
  });

  it('passes a cost that leaves room, notes one that leaves little, fails one that cannot keep up, naming the settings', () => {
    expect(judgeListeningCost(3.2)).toMatchObject({
      status: 'ok',
      detail: expect.stringContaining('3.2 % of the time to hear speech'),
    });
    expect(judgeListeningCost(40)).toMatchObject({
      status: 'note',
      fix: expect.stringContaining('wake.engine: phrase'),
    });
    expect(judgeListeningCost(140)).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining('too slow to keep up with the microphone'),
      fix: expect.stringContaining('vad.engine: energy'),
    });
    expect(judgeListeningCost(undefined)).toMatchObject({ status: 'skip' });
  });
});
