import type { OperatorFunction } from 'rxjs';
import { Reframer } from '../audio/frames.js';
import { stateful } from './stateful.js';

/** PCM chunks of any size (odd byte counts included) → frames of exactly `frameSamples`. */
export function toFrames(frameSamples: number): OperatorFunction<Buffer, Int16Array> {
  return stateful(() => new Reframer(frameSamples));
}
