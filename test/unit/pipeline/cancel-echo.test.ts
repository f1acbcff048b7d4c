import { describe, expect, it } from 'vitest';
import { map } from 'rxjs';
import { cancelEcho } from '../../../src/pipeline/cancel-echo.js';
import type { EchoCanceller, EchoState } from '../../../src/pipeline/ports.js';
import { watchedLogger } from '../../helpers/logger.js';
import { testScheduler } from '../../helpers/marbles.js';

/** Halves every sample and remembers the capture time of each frame. */
class FakeCanceller implements EchoCanceller {
  readonly frameSamples = 16;
  readonly times: number[] = [];
  failing = false;
  cancel(mic: Int16Array, captureTimeMs: number): Int16Array {
    if (this.failing) throw new Error('trap');
    this.times.push(captureTimeMs);
    return mic.map((v) => v / 2);
  }
  state(): EchoState {
    return {
      active: false,
      delayMs: 0,
      delayConfidence: null,
      erleDb: null,
      adapted: false,
      micDbfs: 0,
      outDbfs: 0,
      echoDbfs: 0,
    };
  }
}

/** `samples` samples of value 100 (1 ms is 16 samples at 16 kHz). */
const chunk = (samples: number) => Buffer.from(new Int16Array(samples).fill(100).buffer);
const samplesIn = (b: Buffer) => b.length / 2;

describe('cancelEcho', () => {
  it('cancels whole frames and dates each by the samples counted since the first chunk arrived', () => {
    const scheduler = testScheduler();
    const canceller = new FakeCanceller();
    scheduler.run(({ hot, expectObservable }) => {
      // 2 ms chunks (32 samples) arriving every 2 ms, the first at t = 10: captured from t = 8.
      const source = hot('----------a-b-c|', { a: chunk(32), b: chunk(32), c: chunk(24) });
      const out = source.pipe(
        cancelEcho(canceller, { now: () => scheduler.now(), logger: watchedLogger() }),
        map((b) => [samplesIn(b), new Int16Array(b.buffer, b.byteOffset, 1)[0]]),
      );
      expectObservable(out).toBe('----------a-b-c|', { a: [32, 50], b: [32, 50], c: [16, 50] });
    });
    expect(canceller.times).toEqual([8, 9, 10, 11, 12]);
  });

  it('a chunk that arrives sooner than the count allows moves the timeline earlier; a gap starts it over', () => {
    const scheduler = testScheduler();
    const canceller = new FakeCanceller();
    scheduler.run(({ hot, expectObservable }) => {
      // a: 1 ms at t=10 (from 9). b: 1 ms at t=10 as well (so a was captured from 8). c: 1 ms at t=300: audio was lost.
      const source = hot('----------(ab)' + '-'.repeat(286) + 'c|', { a: chunk(16), b: chunk(16), c: chunk(16) });
      const out = source.pipe(cancelEcho(canceller, { now: () => scheduler.now(), logger: watchedLogger() }));
      expectObservable(out.pipe(map(samplesIn))).toBe('----------(ab)' + '-'.repeat(286) + 'c|', {
        a: 16,
        b: 16,
        c: 16,
      });
    });
    expect(canceller.times).toEqual([9, 9, 299]);
  });

  it('passes a frame through when the canceller fails on it, and says so once', () => {
    const scheduler = testScheduler();
    const canceller = new FakeCanceller();
    canceller.failing = true;
    const logger = watchedLogger();
    scheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a-b|', { a: chunk(16), b: chunk(16) });
      const out = source.pipe(
        cancelEcho(canceller, { now: () => scheduler.now(), logger }),
        map((b) => new Int16Array(b.buffer, b.byteOffset, 1)[0]),
      );
      expectObservable(out).toBe('-a-b|', { a: 100, b: 100 });
    });
    expect(logger.lines.filter((l) => l.event === 'echo.cancel_failed')).toHaveLength(1);
  });

  it('unsubscribes from the microphone when unsubscribed', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-a-a-a', { a: chunk(16) });
      const out = source.pipe(
        cancelEcho(new FakeCanceller(), { now: () => 0, logger: watchedLogger() }),
        map(samplesIn),
      );
      expectObservable(out, '^----!').toBe('-a-a-', { a: 16 });
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });
});
