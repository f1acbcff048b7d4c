import { concatMap, from, of, type Observable, type OperatorFunction } from 'rxjs';
import { EnergyVad } from '../listen/energy-vad.js';
import type { ScoredFrame } from '../listen/segmenter.js';
import type { Logger } from '../system/logger.js';
import type { Vad } from './ports.js';

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
  const fallback = (samples: Int16Array, error: unknown): ScoredFrame => {
    if (active === vad) {
      logger.error('vad.failed', { vad: vad.name, error: (error as Error).message, using: 'energy VAD' });
      active = new EnergyVad(fallbackGateDbfs);
    }
    return { samples, probability: active.probability(samples) as number };
  };
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
      return of(fallback(samples, error));
    }
  };
  return concatMap(score);
}
