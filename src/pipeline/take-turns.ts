import { concatMap, connect, map, merge, takeUntil, type Observable, type OperatorFunction } from 'rxjs';
import type { Interruption, Query } from '../dialog/turn.js';
import { ofType, type GateEvent, type TurnEvent } from './events.js';

export interface TakeTurnsOptions {
  /** The user talking over hark (already long enough to count). */
  interruptions: Observable<unknown>;
  /** Turns wait for each other and nothing but shutdown cuts them (input faster than real time). */
  queue: boolean;
  /** hark is stopping: the turn under way is cut and no other starts. */
  shutdown: Observable<unknown>;
}

/**
 * Verdicts → turns, one at a time, in order. A turn is cut by the user talking over it, by the
 * next query, by a stop phrase or by shutdown; the next query starts once the cut turn has ended.
 */
export function takeTurns(
  answer: (query: Query, cut: Observable<Interruption>) => Observable<TurnEvent>,
  options: TakeTurnsOptions,
): OperatorFunction<GateEvent, TurnEvent> {
  return connect((verdicts) => {
    const shutdown = options.shutdown.pipe(map((): Interruption => 'shutdown'));
    const cut: Observable<Interruption> = options.queue
      ? shutdown
      : merge(
          shutdown,
          options.interruptions.pipe(map((): Interruption => 'speech')),
          verdicts.pipe(
            ofType('query', 'stop'),
            map((verdict): Interruption => verdict.type),
          ),
        );
    return verdicts.pipe(
      ofType('query'),
      takeUntil(options.shutdown),
      concatMap(({ query }) => answer(query, cut)),
    );
  });
}
