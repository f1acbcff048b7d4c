import {
  EMPTY,
  catchError,
  concat,
  concatMap,
  concatWith,
  defer,
  ignoreElements,
  of,
  takeUntil,
  tap,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { TurnRecorder } from '../dialog/turn-recorder.js';
import type { Interruption } from '../dialog/turn.js';
import type { Placement } from '../speak/heard.js';
import type { TurnEvent } from './events.js';
import type { Earcons, Player } from './ports.js';

export interface RecordTurnDeps {
  recorder: TurnRecorder;
  player: Player;
  earcons: Earcons;
  /** Ends the turn early, saying why. */
  cut: Observable<Interruption>;
  now: () => number;
}

/**
 * A turn's placements → what the rest of the loop sees of the turn: thinking, speaking, and at
 * the end listening again and the turn's record. The turn ends when the last sample is played,
 * when `cut` fires (every request of the turn is then unsubscribed and unplayed audio dropped),
 * or when a stage fails (the error earcon plays; the record says why). Errors stay inside.
 */
export function recordTurn(deps: RecordTurnDeps): OperatorFunction<Placement, TurnEvent> {
  const { recorder, player, earcons } = deps;
  return (placements) =>
    defer(() => {
      let interrupted: Interruption | false = false;
      let failed: Error | undefined;
      const said = new Set<number>();
      earcons.play('thinking');
      const speaking = placements.pipe(
        concatWith(player.queuedBelow(0).pipe(ignoreElements())),
        takeUntil(deps.cut.pipe(tap((why) => (interrupted = why)))),
        concatMap((placement): TurnEvent[] => {
          const firstOfSentence = !said.has(placement.sentence.index);
          said.add(placement.sentence.index);
          const events: TurnEvent[] = recorder.placed(placement, player) ? [{ type: 'state', state: 'speaking' }] : [];
          if (firstOfSentence) events.push({ type: 'saying', sentence: placement.sentence });
          return events;
        }),
        catchError((error: unknown) => {
          failed = error instanceof Error ? error : new Error(String(error));
          return EMPTY;
        }),
      );
      const end = defer(() => {
        const complete = !interrupted && !failed;
        const turn = recorder.finish(interrupted, failed, player, complete ? undefined : deps.now());
        if (!complete) player.stop();
        if (failed) earcons.play('error');
        const events: TurnEvent[] = [
          { type: 'state', state: 'listening' },
          { type: 'turn', turn },
        ];
        return of(...events);
      });
      return concat(of<TurnEvent>({ type: 'state', state: 'thinking' }), speaking, end);
    });
}
