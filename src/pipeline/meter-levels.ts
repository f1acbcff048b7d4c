import {
  EMPTY,
  defer,
  distinctUntilChanged,
  endWith,
  filter,
  ignoreElements,
  map,
  merge,
  switchMap,
  takeUntil,
  tap,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import { dbfs, rms } from '../audio/pcm.js';
import type { ScoredFrame } from '../listen/speech-events.js';
import type { MeterEvent } from './events.js';
import type { EchoState, WakeWordScores } from './ports.js';

/** The quietest level a meter shows (digital silence is -120 dBFS). */
const FLOOR_DBFS = -90;
/** Meters about 15 times a second: enough to look alive, cheap to send. */
const METER_MS = 66;

export interface MeterOptions {
  /** Whether anyone is looking: while false (or with nobody who could: undefined), no frame is measured at all. */
  on: Observable<boolean> | undefined;
  /** At most one meter per this many ms (of the clock below, so input faster than real time does not flood); 66 unless told. */
  intervalMs?: number;
  now: () => number;
  /** The wake word's scores, when it is listened for. */
  wake?: Observable<WakeWordScores> | undefined;
  /** The echo canceller, when there is one: its state is read with each meter. */
  echo?: { state(): EchoState } | undefined;
}

/**
 * Scored frames → a meter every `intervalMs` while `on` says someone looks: the loudest level
 * hark heard in that time (after the echo canceller), the highest speech probability, the
 * highest score of each wake word, and the echo canceller's state. Ends with the frames.
 */
export function meterLevels(options: MeterOptions): OperatorFunction<ScoredFrame, MeterEvent> {
  const { on } = options;
  if (!on) return () => EMPTY;
  return (frames) =>
    on.pipe(
      distinctUntilChanged(),
      switchMap((on) => (on ? measure(frames, options) : EMPTY)),
      takeUntil(frames.pipe(ignoreElements(), endWith(true))),
    );
}

function measure(frames: Observable<ScoredFrame>, options: MeterOptions): Observable<MeterEvent> {
  return defer(() => {
    let levelDbfs = FLOOR_DBFS;
    let vad = 0;
    let wake: Record<string, number> | undefined;
    let since = options.now();
    const wakeScores = options.wake
      ? options.wake.pipe(
          tap(({ scores }) => {
            wake ??= {};
            for (const [model, score] of Object.entries(scores)) wake[model] = Math.max(wake[model] ?? 0, score);
          }),
          ignoreElements(),
        )
      : EMPTY;
    const meters = frames.pipe(
      map((frame): MeterEvent | undefined => {
        levelDbfs = Math.max(levelDbfs, dbfs(rms(frame.samples)));
        vad = Math.max(vad, frame.probability);
        const now = options.now();
        if (now - since < (options.intervalMs ?? METER_MS)) return undefined;
        const meter: MeterEvent = {
          type: 'meter',
          levelDbfs: Math.round(levelDbfs * 10) / 10,
          vad: Math.round(vad * 1000) / 1000,
          ...(wake ? { wake } : {}),
          ...(options.echo ? { echo: options.echo.state() } : {}),
        };
        levelDbfs = FLOOR_DBFS;
        vad = 0;
        wake = undefined;
        since = now;
        return meter;
      }),
      filter((meter): meter is MeterEvent => meter !== undefined),
    );
    return merge(wakeScores, meters);
  });
}
