import type { OperatorFunction } from 'rxjs';
import { Reframer, type Frame } from '../audio/frames.js';
import { stateful } from './stateful.js';

/**
 * PCM chunks of any size (odd byte counts included) → frames of exactly `frameSamples`, each
 * stamped with its capture time: a chunk arriving at `now()` ends then.
 */
export function toFrames(
  frameSamples: number,
  sampleRateHz: number,
  now: () => number,
): OperatorFunction<Buffer, Frame> {
  return stateful(() => {
    const reframer = new Reframer(frameSamples, sampleRateHz);
    return { push: (chunk: Buffer) => reframer.push(chunk, now()) };
  });
}
