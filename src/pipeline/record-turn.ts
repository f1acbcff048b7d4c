import {
  EMPTY,
  catchError,
  concat,
  concatMap,
  concatWith,
  defaultIfEmpty,
  defer,
  filter,
  ignoreElements,
  map,
  merge,
  of,
  share,
  take,
  takeUntil,
  tap,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { PlaybackError } from '../audio/playback-error.js';
import type { TurnRecorder } from '../dialog/turn-recorder.js';
import type { Interruption, Transcript } from '../dialog/turn.js';
import type { Placement } from '../speak/heard.js';
import type { TurnEvent } from './events.js';
import type { Earcons, Player } from './ports.js';
import { asError } from '../system/as-error.js';

export interface RecordTurnDeps {
  recorder: TurnRecorder;
  player: Player;
  earcons: Earcons;
  /** Ends the turn early, saying why. */
  cut: Observable<Interruption>;
  /** Gives the confirmed transcript when the turn may begin to sound; until then it is held. */
  start: Observable<Transcript>;
  /** What the user said, in words: the record waits for it (a turn begun from the recording gets it last). */
  text: Observable<string>;
  now: () => number;
}

/**
 * A turn's placements → what the rest of the loop sees of the turn: thinking (once `start`
 * says it may sound), speaking, and at the end listening again and the turn's record. The turn
 * ends when the last sample is played, when `cut` fires (every request of the turn is then
 * unsubscribed and unplayed audio dropped), or when a stage fails (the error earcon plays; the
 * record says why). A player that fails where the turn's audio is fails it: what fell there was
 * never heard. Errors stay inside. A held turn that never started ends without a trace.
 */
export function recordTurn(deps: RecordTurnDeps): OperatorFunction<Placement, TurnEvent> {
  const { recorder, player, earcons } = deps;
  return (placements) =>
    defer(() => {
      let interrupted: Interruption | false = false;
      let failed: Error | undefined;
      let started = false;
      const said = new Set<number>();
      // What the player lost while the turn was under way; a loss is the turn's once it placed audio there.
      const losses: PlaybackError[] = [];
      const ownLoss = (): PlaybackError | undefined =>
        losses.find((loss) => recorder.placedBetween(loss.fromSample, loss.toSample));
      const lost = player.failures.pipe(
        tap((loss) => losses.push(loss)),
        filter(() => ownLoss() !== undefined),
        take(1),
        tap(() => (failed ??= ownLoss())),
      );
      const cut = deps.cut.pipe(
        take(1),
        tap((why) => (interrupted = why)),
        share(),
      );
      const begin = deps.start.pipe(
        take(1),
        takeUntil(cut),
        map((transcript): TurnEvent => {
          started = true;
          recorder.confirm(transcript);
          earcons.play('thinking');
          return { type: 'state', state: 'thinking' };
        }),
      );
      const speaking = placements.pipe(
        concatWith(player.queuedBelow(0).pipe(ignoreElements())),
        takeUntil(cut),
        takeUntil(lost),
        concatMap((placement): TurnEvent[] => {
          const firstOfSentence = !said.has(placement.sentence.index);
          said.add(placement.sentence.index);
          const speaks = recorder.placed(placement, player);
          // Written while the player could not play: the loss was told before the placement.
          const loss = ownLoss();
          if (loss) throw loss;
          const events: TurnEvent[] = speaks ? [{ type: 'state', state: 'speaking' }] : [];
          if (firstOfSentence) events.push({ type: 'saying', sentence: placement.sentence });
          return events;
        }),
        catchError((error: unknown) => {
          failed = asError(error);
          return EMPTY;
        }),
      );
      const end = defer(() => {
        if (!started) return EMPTY;
        const complete = !interrupted && !failed;
        const silentFrom = ownLoss()?.fromSample;
        const turn = recorder.finish(interrupted, failed, player, complete ? undefined : deps.now(), silentFrom);
        if (!complete) player.stop();
        if (failed) earcons.play('error');
        // A turn begun from the recording is named by its transcript, which may come later.
        const named = interrupted === 'shutdown' ? of(turn.query.text) : deps.text.pipe(take(1), defaultIfEmpty(''));
        return concat(
          of<TurnEvent>({ type: 'state', state: 'listening' }),
          named.pipe(map((text): TurnEvent => ({ type: 'turn', turn: { ...turn, query: { ...turn.query, text } } }))),
        );
      });
      return concat(merge(begin, speaking), end);
    });
}
