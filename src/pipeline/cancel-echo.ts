import { map, type OperatorFunction } from 'rxjs';
import { NO_ECHO_DBFS, type Frame } from '../audio/frames.js';
import { dbfs } from '../audio/pcm.js';
import type { Logger } from '../system/logger.js';
import type { EchoCanceller } from './ports.js';

/**
 * Frames → the same frames with hark's own voice taken out, the level of the echo taken out, and
 * whether the canceller's account can be trusted yet and how far below the echo it leaves hark's
 * voice (else how loud the echo may be, from what hark played), so later stages can tell what is
 * left of hark's voice from the user's. The canceller works in
 * smaller frames, each dated by when its first sample was captured. A frame the canceller fails
 * on passes through as it was (said once in the log).
 */
export function cancelEcho(
  canceller: EchoCanceller,
  sampleRateHz: number,
  logger: Logger,
): OperatorFunction<Frame, Frame> {
  let failures = 0;
  const step = canceller.frameSamples;
  const msPerSample = 1000 / sampleRateHz;
  return map((frame) => {
    const { samples } = frame;
    const firstAt = frame.capturedAt - samples.length * msPerSample;
    if (samples.length % step === 0 && canceller.passes(samples, firstAt)) return { ...frame, ...NOTHING_PLAYED };
    const out = new Int16Array(samples.length);
    let trusted = true;
    let predicted: number | null = NO_ECHO_DBFS;
    let loss: number | null = Infinity;
    let taken = Infinity;
    // Either canceller frame showing someone beyond hark's echo shows it in the whole frame.
    let beyond: number | null = null;
    try {
      for (let at = 0; at + step <= samples.length; at += step) {
        out.set(canceller.cancel(samples.subarray(at, at + step), firstAt + at * msPerSample), at);
        const verdict = canceller.lastVerdict();
        if (!verdict.possible) continue;
        trusted &&= verdict.trusted;
        loss = loss === null || verdict.lossDb === null ? null : Math.min(loss, verdict.lossDb);
        taken = Math.min(taken, verdict.takenDb);
        if (verdict.beyondDb !== null) beyond = Math.max(beyond ?? -Infinity, verdict.beyondDb);
        predicted =
          predicted === null || verdict.predictedDbfs === null ? null : Math.max(predicted, verdict.predictedDbfs);
      }
    } catch (error) {
      if (failures++ === 0) logger.warn('echo.cancel_failed', { error: (error as Error).message });
      return frame;
    }
    return {
      samples: out,
      capturedAt: frame.capturedAt,
      echoDbfs: removedDbfs(samples, out),
      echoTrusted: trusted,
      echoPredictedDbfs: predicted,
      echoLossDb: loss === Infinity ? null : loss,
      echoTakenDb: taken === Infinity ? 0 : taken,
      echoBeyondDb: beyond,
    };
  });
}

/** A frame nothing hark played can reach: no echo taken out, none possible. */
const NOTHING_PLAYED = {
  echoDbfs: dbfs(0),
  echoTrusted: true,
  echoPredictedDbfs: NO_ECHO_DBFS,
  echoLossDb: null,
  echoTakenDb: 0,
  echoBeyondDb: null,
} as const;

/** The level of what the canceller took out: the echo it found. */
function removedDbfs(mic: Int16Array, out: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < mic.length; i++) {
    const removed = ((mic[i] as number) - (out[i] as number)) / 32768;
    sum += removed * removed;
  }
  return dbfs(Math.sqrt(sum / mic.length));
}
