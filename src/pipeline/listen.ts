import { Observable, concatMap, from, mergeMap, of, type OperatorFunction } from 'rxjs';
import { Reframer } from '../audio/frames.js';
import type { Vad } from '../listen/vad.js';
import {
  Segmenter,
  type FrameContext,
  type ScoredFrame,
  type SegmenterConfig,
  type SegmenterEvent,
} from '../listen/segmenter.js';
import type { Logger } from '../system/logger.js';
import { EnergyVad } from '../listen/energy-vad.js';

/** PCM chunks of any size → frames of exactly `frameSamples`. */
export function toFrames(frameSamples: number): OperatorFunction<Buffer, Int16Array> {
  return (source) =>
    new Observable<Int16Array>((subscriber) => {
      const reframer = new Reframer(frameSamples);
      return source.subscribe({
        next: (chunk) => {
          for (const frame of reframer.push(chunk)) subscriber.next(frame);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

/**
 * Frames → frames with their speech probability, in order. If the model fails mid-run, the
 * energy VAD takes over and the log says so; listening never stops over it.
 */
export function scoreVoice(
  vad: Vad,
  logger: Logger,
  fallbackGateDbfs: number,
): OperatorFunction<Int16Array, ScoredFrame> {
  let active: Vad = vad;
  const score = (samples: Int16Array): Observable<ScoredFrame> => {
    try {
      const result = active.probability(samples);
      if (typeof result === 'number') return of({ samples, probability: result });
      return from(
        result.then(
          (probability) => ({ samples, probability }),
          (error: unknown) => fallback(samples, error),
        ),
      );
    } catch (error) {
      return from(Promise.resolve(fallback(samples, error)));
    }
  };
  const fallback = (samples: Int16Array, error: unknown): ScoredFrame => {
    if (active === vad) {
      logger.error('vad.failed', { vad: vad.name, error: (error as Error).message, using: 'energy VAD' });
      active = new EnergyVad(fallbackGateDbfs);
    }
    return { samples, probability: active.probability(samples) as number };
  };
  return concatMap(score);
}

/** Scored frames → segmenter events; `context` is read per frame (is hark speaking? listening?). */
export function segment(
  config: SegmenterConfig,
  context: () => FrameContext,
): OperatorFunction<ScoredFrame, SegmenterEvent> {
  return (source) =>
    new Observable<SegmenterEvent>((subscriber) => {
      const segmenter = new Segmenter(config);
      return source.subscribe({
        next: (frame) => {
          for (const event of segmenter.push(frame, context())) subscriber.next(event);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          for (const event of segmenter.flush()) subscriber.next(event);
          subscriber.complete();
        },
      });
    });
}

/** Only the utterances. */
export function utterances(): OperatorFunction<
  SegmenterEvent,
  Extract<SegmenterEvent, { type: 'utterance' }>['utterance']
> {
  return mergeMap((event) => (event.type === 'utterance' ? of(event.utterance) : []));
}
