import {
  EMPTY,
  asapScheduler,
  concat,
  defer,
  exhaustMap,
  filter,
  from,
  ignoreElements,
  map,
  merge,
  of,
  repeat,
  share,
  subscribeOn,
  take,
  takeUntil,
  tap,
  timer,
  type Observable,
} from 'rxjs';
import type { GateEvent, InterruptionEvent, RingEvent, RingStop } from './events.js';
import type { Announcement, Earcons, Player, Synthesizer } from './ports.js';

/** What a ring and a notice need alike: each sounds once hark is idle, until it is over or stopped. */
export interface SaysWhenIdle {
  /**
   * Whether hark is idle (no turn, no ring, no notice under way), as it is when each value is
   * delivered: what is to be said waits for it.
   */
  idle: Observable<boolean>;
  /** What stops it under way: a stop phrase or button, the wake word, a query, the user talking, shutdown. */
  stops: Observable<RingStop>;
  /** Told when it starts and stops sounding, so what hears the room treats it as hark speaking. */
  sounding: (on: boolean) => void;
  synthesizer: Synthesizer;
  player: Player;
  earcons: Earcons;
}

export interface RingDeps extends SaysWhenIdle {
  /** Timers and alarms as they fall due. */
  announcements: Observable<Announcement>;
  /** A ring nobody stops ends after this long. */
  maxMs: number;
  /** Quiet between one announcement and its repeat. */
  repeatPauseMs: number;
}

/**
 * Rings what falls due, once hark is idle: the alarm earcon and the announcement ("Your pasta
 * timer is done."), again and again, until the user stops it or `maxMs` passes. Several due
 * together (or falling due while one rings) are announced together. The announcement is
 * synthesized once per text and replayed.
 */
export function ringAlarms(deps: RingDeps): Observable<RingEvent> {
  return defer(() => {
    const pending: Announcement[] = [];
    let idle = false;
    const arrivals = deps.announcements.pipe(tap((a) => pending.push(a)));
    const idles = deps.idle.pipe(tap((on) => (idle = on)));
    const ring = (): Observable<RingEvent> =>
      defer(() => {
        const textNow = (): string => pending.map((a) => a.text).join(' ');
        const idsNow = (): string[] => pending.map((a) => a.id);
        let audio: { text: string; chunks: Buffer[] } | undefined;
        const sayOnce = defer(() => {
          const text = textNow();
          deps.earcons.play('alarm');
          const chunks: Buffer[] = [];
          const speech =
            audio?.text === text
              ? from(audio.chunks)
              : deps.synthesizer
                  .synthesize(text)
                  .pipe(tap({ next: (pcm) => chunks.push(pcm), complete: () => (audio = { text, chunks }) }));
          return concat(
            speech.pipe(tap((pcm) => deps.player.write(pcm))),
            deps.player.queuedBelow(0),
            timer(deps.repeatPauseMs),
          ).pipe(ignoreElements());
        });
        const stopped = merge(deps.stops, timer(deps.maxMs).pipe(map((): RingStop => 'timeout'))).pipe(
          take(1),
          share(),
        );
        const first = { ids: idsNow(), text: textNow() };
        deps.sounding(true);
        return merge(
          of<RingEvent>({ type: 'ring', phase: 'started', ...first }),
          sayOnce.pipe(repeat(), takeUntil(stopped)),
          stopped.pipe(
            map((by): RingEvent => {
              const done = { ids: idsNow(), text: textNow() };
              pending.length = 0;
              deps.player.stop();
              deps.sounding(false);
              return { type: 'ring', phase: 'stopped', ...done, by };
            }),
          ),
        );
      });
    return merge(arrivals, idles).pipe(
      filter(() => idle && pending.length > 0),
      // Announcements falling due together arrive one by one in the same moment: the ring
      // starts once they all have (and only if hark is still idle by then).
      exhaustMap(() => defer(() => (idle ? ring() : EMPTY)).pipe(subscribeOn(asapScheduler))),
    );
  });
}

/**
 * What stops a ring (or a notice): a stop phrase, the wake word, a confirmed query, the user
 * talking over it, a stop button, or the end.
 */
export function ringStops(
  verdicts: Observable<GateEvent>,
  interruptions: Observable<InterruptionEvent>,
  end: Observable<unknown>,
  control: Observable<unknown> = EMPTY,
): Observable<RingStop> {
  return merge(
    control.pipe(map((): RingStop => 'control')),
    verdicts.pipe(
      filter((v) => v.type === 'stop' || v.type === 'wake' || (v.type === 'query' && !v.query.transcript.tentative)),
      map((v): RingStop => (v.type === 'stop' ? 'stop' : v.type === 'wake' ? 'wake' : 'query')),
    ),
    interruptions.pipe(
      filter((event) => event.phase === 'confirmed'),
      map((): RingStop => 'speech'),
    ),
    end.pipe(map((): RingStop => 'shutdown')),
  );
}
