import type { OperatorFunction } from 'rxjs';
import { Reframer } from '../audio/frames.js';
import { bufferOf } from '../audio/pcm.js';
import type { Logger } from '../system/logger.js';
import type { EchoCanceller } from './ports.js';
import { stateful } from './stateful.js';

export interface CancelEchoOptions {
  /** The monotonic clock the player's clock runs on, ms. */
  now: () => number;
  logger: Logger;
  sampleRateHz: number;
  /** Input that arrives this much later than its sample count says means lost audio: the timeline starts over, ms. */
  resyncMs: number;
}

export const CANCEL_ECHO_DEFAULTS = { sampleRateHz: 16000, resyncMs: 200 };

/**
 * Microphone PCM chunks (16 kHz s16le, any size) → the same audio with hark's own voice taken
 * out, in whole frames of the canceller (so up to one frame later). Each frame's capture time
 * comes from the samples counted since a start instant, which moves earlier whenever a chunk
 * arrives sooner than the count allows (it was captured no later than it arrived) and starts
 * over after a gap. A frame the canceller fails on passes through as it was.
 */
export function cancelEcho(
  canceller: EchoCanceller,
  options: Pick<CancelEchoOptions, 'now' | 'logger'> & Partial<CancelEchoOptions>,
): OperatorFunction<Buffer, Buffer> {
  const { now, logger, sampleRateHz, resyncMs } = { ...CANCEL_ECHO_DEFAULTS, ...options };
  const msPerSample = 1000 / sampleRateHz;
  return stateful(() => {
    const reframer = new Reframer(canceller.frameSamples);
    let startMs: number | null = null;
    let counted = 0;
    let framed = 0;
    let failures = 0;
    return {
      push(chunk: Buffer): Buffer[] {
        const arrivedMs = now();
        const samples = Math.floor(chunk.length / 2);
        const pending = counted - framed;
        if (startMs === null || arrivedMs - (startMs + (counted + samples) * msPerSample) > resyncMs) {
          // First chunk, or audio was lost: the timeline starts over, ending at this arrival.
          counted = pending;
          framed = 0;
          startMs = arrivedMs - (pending + samples) * msPerSample;
        } else {
          startMs = Math.min(startMs, arrivedMs - (counted + samples) * msPerSample);
        }
        counted += samples;
        const out: Int16Array[] = [];
        for (const frame of reframer.push(chunk)) {
          const captureTimeMs = startMs + framed * msPerSample;
          framed += frame.length;
          try {
            out.push(canceller.cancel(frame, captureTimeMs));
          } catch (error) {
            if (failures++ === 0) logger.warn('echo.cancel_failed', { error: (error as Error).message });
            out.push(frame);
          }
        }
        if (out.length === 0) return [];
        if (out.length === 1) return [bufferOf(out[0] as Int16Array)];
        return [Buffer.concat(out.map(bufferOf))];
      },
    };
  });
}
