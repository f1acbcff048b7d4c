import {
  EMPTY,
  Subject,
  catchError,
  concat,
  defer,
  endWith,
  exhaustMap,
  filter,
  finalize,
  ignoreElements,
  map,
  merge,
  of,
  race,
  take,
  tap,
  timer,
  type Observable,
} from 'rxjs';
import type { NoticeEvent, NoticeTimings } from './events.js';
import type { Notice } from './ports.js';
import type { SaysWhenIdle } from './ring-alarms.js';

export interface NoticeDeps extends SaysWhenIdle {
  /** Announcements and questions, as they arrive. */
  notices: Observable<Notice>;
  /** After a question, how long its answer is waited for before the next notice may sound. */
  answerWithinMs: number;
  now: () => number;
}

/**
 * Says what the home asks hark to say, once hark is idle: never over a turn or a ring, one
 * notice at a time, in the order they came. Each starts with the announce earcon. After a
 * question, the next notice waits for the answer (a turn) or for `answerWithinMs`. A notice
 * stopped by hark stopping is left unsaid (its caller keeps it for the next run).
 */
export function sayNotices(deps: NoticeDeps): Observable<NoticeEvent> {
  return defer(() => {
    const pending: Notice[] = [];
    let idle = false;
    // Told when a notice is wholly over, so the next is looked at; done with once hark is.
    const over = new Subject<void>();
    const arrivals = deps.notices.pipe(tap((notice) => pending.push(notice)));
    const idles = deps.idle.pipe(
      tap((on) => (idle = on)),
      finalize(() => over.complete()),
    );
    return merge(arrivals, idles, over).pipe(
      filter(() => idle && pending.length > 0),
      exhaustMap(() =>
        say(deps, pending[0] as Notice).pipe(
          tap((event) => event.phase !== 'started' && pending.shift()),
          finalize(() => over.next()),
        ),
      ),
    );
  });
}

function say(deps: NoticeDeps, notice: Notice): Observable<NoticeEvent> {
  return defer(() => {
    const { player, now } = deps;
    const timings: NoticeTimings = { speechRequest: now() };
    const before = player.writtenSamples();
    deps.sounding(true);
    deps.earcons.play('announce');
    const speech = deps.synthesizer.synthesize(notice.text).pipe(
      tap((pcm) => {
        if (timings.firstPlayed === undefined) {
          timings.firstAudioByte = now();
          const aheadMs = ((player.writtenSamples() - player.playedSamples()) / player.sampleRateHz) * 1000;
          timings.firstPlayed = timings.firstAudioByte + Math.max(0, aheadMs);
        }
        player.write(pcm);
      }),
    );
    const played = concat(speech, player.queuedBelow(0)).pipe(
      ignoreElements(),
      endWith(undefined),
      map((): NoticeEvent => {
        const playedMs = Math.round(((player.writtenSamples() - before) / player.sampleRateHz) * 1000);
        return { type: 'notice', phase: 'spoken', notice, timings, playedMs };
      }),
    );
    const cut = deps.stops.pipe(
      map((by): NoticeEvent => {
        player.stop();
        return { type: 'notice', phase: 'stopped', notice, by };
      }),
    );
    const outcome = merge(played, cut).pipe(
      take(1),
      catchError((error: unknown) => {
        player.stop();
        return of<NoticeEvent>({ type: 'notice', phase: 'failed', notice, error: error as Error });
      }),
      // Quiet before a question's answer is waited for: the answer is not talk over hark.
      tap(() => deps.sounding(false)),
    );
    // The answer to a question: a turn starting (hark no longer idle), or nothing in time.
    const answer =
      notice.kind === 'ask'
        ? race(
            timer(deps.answerWithinMs),
            deps.idle.pipe(filter((on) => !on)),
            deps.stops.pipe(filter((by) => by === 'shutdown')),
          ).pipe(take(1), ignoreElements())
        : EMPTY;
    return concat(of<NoticeEvent>({ type: 'notice', phase: 'started', notice }), outcome, answer);
  });
}
