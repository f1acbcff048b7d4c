import { EMPTY, asyncScheduler, filter, map, switchMap, timer, type OperatorFunction, type SchedulerLike } from 'rxjs';
import type { AssistantEvent } from './events.js';

/**
 * The loop's events → a moment between turns: `quietMs` after a turn is over, unless hark has
 * begun thinking, speaking or ringing again by then (the next turn's end brings the next moment).
 * For work that would otherwise hold up a turn, such as a garbage collection.
 */
export function betweenTurns(
  quietMs: number,
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<AssistantEvent, void> {
  return (events) =>
    events.pipe(
      filter((event) => event.type === 'turn' || (event.type === 'state' && event.state !== 'listening')),
      switchMap((event) => (event.type === 'turn' ? timer(quietMs, scheduler) : EMPTY)),
      map(() => undefined),
    );
}
