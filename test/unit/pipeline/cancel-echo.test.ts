import { describe, expect, it } from 'vitest';
import { from, lastValueFrom, toArray } from 'rxjs';
import type { Frame } from '../../../src/audio/frames.js';
import { cancelEcho } from '../../../src/pipeline/cancel-echo.js';
import type { EchoCanceller, EchoState, EchoVerdict } from '../../../src/pipeline/ports.js';
import { watchedLogger } from '../../helpers/logger.js';

/** Takes out half of every sample (the "echo") and remembers the capture time of each of its 16-sample frames. */
class FakeCanceller implements EchoCanceller {
  readonly frameSamples = 16;
  readonly times: number[] = [];
  failing = false;
  /** The verdict on each frame in turn (the last one repeats). */
  verdicts: EchoVerdict[] = [
    { possible: true, trusted: true, predictedDbfs: -30, lossDb: null, takenDb: 0, beyondDb: null },
  ];
  private verdict = this.verdicts[0] as EchoVerdict;
  /** Captures after this time are out of reach of anything played (Infinity: every frame may hold an echo). */
  quietFrom = Infinity;
  passes(_mic: Int16Array, captureTimeMs: number): boolean {
    return captureTimeMs >= this.quietFrom;
  }
  cancel(mic: Int16Array, captureTimeMs: number): Int16Array {
    if (this.failing) throw new Error('trap');
    this.times.push(captureTimeMs);
    this.verdict =
      this.verdicts.length > 1 ? (this.verdicts.shift() as EchoVerdict) : (this.verdicts[0] as EchoVerdict);
    return mic.map((v) => v / 2);
  }
  lastVerdict(): EchoVerdict {
    return this.verdict;
  }
  state(): EchoState {
    return {
      active: true,
      delayMs: 0,
      delayConfidence: null,
      coherence: null,
      erleDb: null,
      adapted: false,
      micDbfs: 0,
      outDbfs: 0,
      echoDbfs: 0,
    };
  }
}

/** A 2 ms frame (32 samples at 16 kHz) of value 1000, its last sample captured at `capturedAt`. */
const frame = (capturedAt: number): Frame => ({ samples: new Int16Array(32).fill(1000), capturedAt });

describe('cancelEcho', () => {
  it("cancels each frame in the canceller's smaller frames, dated by their first sample, and says how much echo it took out", async () => {
    const canceller = new FakeCanceller();
    const out = await lastValueFrom(
      from([frame(10), frame(12)]).pipe(cancelEcho(canceller, 16000, watchedLogger()), toArray()),
    );
    expect(canceller.times).toEqual([8, 9, 10, 11]);
    expect(out.map((f) => [f.samples[0], f.capturedAt])).toEqual([
      [500, 10],
      [500, 12],
    ]);
    // Half of 1000 taken out: 500/32768, about -36 dBFS.
    expect(out[0]?.echoDbfs).toBeCloseTo(20 * Math.log10(500 / 32768), 6);
  });

  it("says whether the canceller's account of a frame can be trusted, and how loud the echo may be in it", async () => {
    const canceller = new FakeCanceller();
    canceller.verdicts = [
      // Frame 1: nothing could echo in its first half; the second half is trusted.
      { possible: false, trusted: false, predictedDbfs: -120, lossDb: null, takenDb: 0, beyondDb: null },
      { possible: true, trusted: true, predictedDbfs: -40, lossDb: null, takenDb: 0, beyondDb: null },
      // Frame 2: one half not trusted, and the echo's loudest not known yet in the other.
      { possible: true, trusted: false, predictedDbfs: -30, lossDb: null, takenDb: 0, beyondDb: null },
      { possible: true, trusted: true, predictedDbfs: null, lossDb: null, takenDb: 0, beyondDb: null },
      // Frame 3: nothing could echo at all.
      { possible: false, trusted: false, predictedDbfs: -120, lossDb: null, takenDb: 0, beyondDb: null },
      { possible: false, trusted: false, predictedDbfs: -120, lossDb: null, takenDb: 0, beyondDb: null },
    ];
    const out = await lastValueFrom(
      from([frame(2), frame(4), frame(6)]).pipe(cancelEcho(canceller, 16000, watchedLogger()), toArray()),
    );
    expect(out.map((f) => [f.echoTrusted, f.echoPredictedDbfs])).toEqual([
      [true, -40],
      [false, null],
      [true, -120],
    ]);
  });

  it('gives the canceller no frame that nothing played can reach: it passes as it was, with no echo in it', async () => {
    const canceller = new FakeCanceller();
    canceller.quietFrom = 10;
    const out = await lastValueFrom(
      from([frame(10), frame(12), frame(14)]).pipe(cancelEcho(canceller, 16000, watchedLogger()), toArray()),
    );
    // The first frame was captured from 8 ms: within reach, so cancelled; the others passed.
    expect(canceller.times).toEqual([8, 9]);
    expect(out.map((f) => f.samples[0])).toEqual([500, 1000, 1000]);
    expect(out.slice(1).map((f) => [f.echoDbfs, f.echoTrusted, f.echoTakenDb])).toEqual([
      [-120, true, 0],
      [-120, true, 0],
    ]);
  });

  it('passes a frame through when the canceller fails on it, and says so once', async () => {
    const canceller = new FakeCanceller();
    canceller.failing = true;
    const logger = watchedLogger();
    const out = await lastValueFrom(from([frame(2), frame(4)]).pipe(cancelEcho(canceller, 16000, logger), toArray()));
    expect(out.map((f) => [f.samples[0], f.echoDbfs])).toEqual([
      [1000, undefined],
      [1000, undefined],
    ]);
    expect(logger.lines.filter((l) => l.event === 'echo.cancel_failed')).toHaveLength(1);
  });
});
