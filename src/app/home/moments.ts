import { Observable, Subscription, asyncScheduler, type SchedulerLike } from 'rxjs';
import type { HookMoment } from '../../config/home-schema.js';
import type { HomeState } from '../../home/discovery.js';
import type { AssistantEvent, NoticeEvent } from '../../pipeline/events.js';

/** A moment of hark's (what a hook runs at), and what hark is doing from then on (what Home Assistant shows). */
export interface Moment {
  moment: HookMoment;
  state: HomeState;
}

/**
 * The voice loop's events as moments: the wake word heard; listening for a command (after a
 * reply or a question, while no wake word is needed); thinking; speaking (a reply, a ring, a
 * notice); an error (a failed turn or transcription); idle again once the follow-up window has
 * passed, or once a ring or an announcement is over; muted while the microphone is. The first
 * is idle (or muted). A moment the same as the one before is not repeated.
 */
export function moments(
  events: Observable<AssistantEvent>,
  muted: Observable<boolean>,
  followUpMs: number,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<Moment> {
  return new Observable<Moment>((subscriber) => {
    let isMuted = false;
    let last: Moment | undefined;
    let resting: Subscription | undefined;
    /** A turn over: told by its record, which follows at once unless its words are still being transcribed. */
    let turnOver: Subscription | undefined;
    const say = (moment: HookMoment, state: HomeState = stateOf(moment)): void => {
      resting?.unsubscribe();
      turnOver?.unsubscribe();
      if (last?.moment === moment && last.state === state) return;
      last = { moment, state };
      subscriber.next(last);
    };
    const rest = (): void => say(isMuted ? 'muted' : 'idle');
    /** Listening (or an error shown) for the follow-up window, then at rest. */
    const listenThenRest = (moment: 'listening' | 'wake' | 'error'): void => {
      if (isMuted && moment !== 'error') return rest();
      say(moment);
      resting = scheduler.schedule(rest, followUpMs);
    };
    const subscriptions = new Subscription();
    subscriptions.add(
      muted.subscribe((on) => {
        isMuted = on;
        rest();
      }),
    );
    subscriptions.add(
      events.subscribe({
        next: (event) => {
          switch (event.type) {
            case 'wake':
              return listenThenRest('wake');
            case 'state':
              if (event.state === 'thinking' || event.state === 'speaking') return say(event.state);
              if (event.state === 'listening') turnOver = scheduler.schedule(() => listenThenRest('listening'), 0);
              return;
            case 'turn':
              return listenThenRest(event.turn.failed ? 'error' : 'listening');
            case 'transcription-failed':
              return listenThenRest('error');
            case 'ring':
              return event.phase === 'started' ? say('speaking') : rest();
            case 'notice':
              if (event.phase === 'started') return say('speaking');
              if (event.phase === 'failed') return listenThenRest('error');
              return event.notice.kind === 'ask' && answering(event) ? listenThenRest('listening') : rest();
            default:
              return;
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      }),
    );
    if (!last) rest();
    return () => {
      subscriptions.unsubscribe();
      resting?.unsubscribe();
      turnOver?.unsubscribe();
    };
  });
}

/**
 * A question said, or cut by the user starting to answer it (talking, a query, the wake word):
 * its answer is listened for. Cut by a stop (or hark stopping), it is not.
 */
export function answering(event: NoticeEvent): boolean {
  if (event.phase === 'spoken') return true;
  return event.phase === 'stopped' && (event.by === 'speech' || event.by === 'query' || event.by === 'wake');
}

function stateOf(moment: HookMoment): HomeState {
  return moment === 'wake' ? 'listening' : moment;
}
