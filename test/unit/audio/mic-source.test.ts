import { describe, expect, it } from 'vitest';
import { micSource } from '../../../src/audio/mic-source.js';
import { createMemoryLogger } from '../../../src/system/logger.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('micSource', () => {
  it('reopens a failing microphone with growing delays, and keeps going', async () => {
    const logger = createMemoryLogger();
    let errored = false;
    const subscription = micSource({
      recorder: 'arecord',
      device: 'hark_no_such_device',
      sampleRateHz: 16000,
      retryMaxMs: 500,
      logger,
    }).subscribe({ error: () => (errored = true) });
    await wait(1600);
    subscription.unsubscribe();
    const failures = logger.lines.filter((l) => l.event === 'mic.failed');
    expect(failures.length).toBeGreaterThanOrEqual(3);
    expect(failures.slice(0, 3).map((f) => f.reopenInMs)).toEqual([250, 500, 500]);
    expect(errored).toBe(false);
  });

  it('survives a recorder binary that is not installed (the library would let that crash the process)', async () => {
    const logger = createMemoryLogger();
    const path = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      const subscription = micSource({
        recorder: 'sox',
        device: null,
        sampleRateHz: 16000,
        retryMaxMs: 300,
        logger,
      }).subscribe();
      await wait(400);
      subscription.unsubscribe();
    } finally {
      process.env.PATH = path;
    }
    expect(logger.lines.find((l) => l.event === 'mic.failed')?.error).toMatch(/ENOENT/);
  });
});
