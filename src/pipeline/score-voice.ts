import { concatMap, from, of, type Observable, type OperatorFunction } from 'rxjs';
import type { Frame } from '../audio/frames.js';
import { EnergyVad } from '../listen/energy-vad.js';
import type { ScoredFrame } from '../listen/speech-events.js';
import type { Logger } from '../system/logger.js';
import type { Vad } from './ports.js';

/**
 * Frames → frames with their speech probability, in order. If the model fails mid-run, the
 * energy VAD takes over and the log says so; listening never stops over it.
 */
export function scoreVoice(vad: Vad, logger: Logger, fallbackGateDbfs: number): OperatorFunction<Frame, ScoredFrame> {
  let active: Vad = vad;
  const fallback = (frame: Frame, error: unknown): ScoredFrame => {
    if (active === vad) {
      logger.error('vad.failed', { vad: vad.name, error: (error as Error).message, using: 'energy VAD' });
      active = new EnergyVad(fallbackGateDbfs);
    }
    return { ...frame, probability: active.probability(frame.samples) as number };
  };
  const score = (frame: Frame): Observable<ScoredFrame> => {
    try {
      const result = active.probability(frame.samples);
      if (typeof result === 'number') return of({ ...frame, probability: result });
      return from(
        result.then(
          (probability) => ({ ...frame, probability }),
          (error: unknown) => fallback(frame, error),
        ),
      );
    } catch (error) {
      return of(fallback(frame, error));
    }
  };
  return concatMap(score);
}
