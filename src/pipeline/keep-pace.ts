import {
  EMPTY,
  concat,
  defer,
  endWith,
  filter,
  ignoreElements,
  map,
  merge,
  mergeMap,
  of,
  takeUntil,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { ScoredFrame } from '../listen/speech-events.js';
import type { PaceEvent } from './events.js';
import type { WakeWordDetector } from './ports.js';

/** Further behind the microphone than this, the listener says so; */
const BEHIND_MS = 1000;
/** again this often while it stays behind; */
const REPEAT_MS = 10_000;
/** and that it has caught up once it is this close again. */
const CAUGHT_UP_MS = 250;

/**
 * Scored frames → how the listener keeps up with the microphone: how long after its capture
 * each frame was scored (the echo canceller and the VAD), and how much audio the wake-word
 * detector has waiting, whichever is further behind; with the detector's own changes of pace
 * and anything it dropped. Never silent about audio heard late or not at all. Ends with the
 * frames (the detector's reports go on until it is closed, which is after).
 */
export function keepPace(
  wake: WakeWordDetector | undefined,
  now: () => number,
): OperatorFunction<ScoredFrame, PaceEvent> {
  return (frames) => {
    let since: number | undefined;
    let reportedAt = 0;
    let worst = 0;
    let droppedSoFar = 0;
    // Once a frame: a plain map, no inner subscription per frame (see inOrder).
    const lag = (frame: ScoredFrame): PaceEvent | undefined => {
      const at = now();
      const speechLag = at - frame.capturedAt;
      const wakeLag = wake?.backlogMs ?? 0;
      const lagMs = Math.round(Math.max(speechLag, wakeLag));
      const stage = wakeLag > speechLag ? 'wake word' : 'speech';
      if (since === undefined) {
        if (lagMs <= BEHIND_MS) return undefined;
        since = reportedAt = at;
        worst = lagMs;
        return { type: 'behind', lagMs, stage };
      }
      worst = Math.max(worst, lagMs);
      if (lagMs < CAUGHT_UP_MS) {
        const caughtUp: PaceEvent = { type: 'caught-up', behindMs: Math.round(at - since), worstLagMs: worst };
        since = undefined;
        return caughtUp;
      }
      if (at - reportedAt < REPEAT_MS) return undefined;
      reportedAt = at;
      return { type: 'behind', lagMs, stage };
    };
    const lags = frames.pipe(
      map(lag),
      filter((event) => event !== undefined),
    );
    // What was dropped is said at once, then summed over REPEAT_MS at a time (a detector that
    // drops does so step after step), and what is left unsaid when the frames end.
    let unsaidMs = 0;
    let droppedSaidAt = -Infinity;
    const dropped = (): Observable<PaceEvent> => {
      const droppedMs = unsaidMs;
      unsaidMs = 0;
      return droppedMs > 0 ? of({ type: 'dropped', droppedMs }) : EMPTY;
    };
    const detector: Observable<PaceEvent> = (wake?.backlog ?? EMPTY).pipe(
      mergeMap((report): Observable<PaceEvent> => {
        const droppedMs = report.droppedMs - droppedSoFar;
        droppedSoFar = report.droppedMs;
        if (droppedMs <= 0)
          return of({ type: 'wake-pace', pace: report.pace, backlogMs: Math.round(report.backlogMs) });
        unsaidMs += droppedMs;
        const at = now();
        if (at - droppedSaidAt < REPEAT_MS) return EMPTY;
        droppedSaidAt = at;
        return dropped();
      }),
      takeUntil(frames.pipe(ignoreElements(), endWith(true))),
    );
    return merge(lags, concat(detector, defer(dropped)));
  };
}
