import { filter, map, tap, type Observable } from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import { answerQuery } from './answer-query.js';
import { ofType, type InterruptionEvent, type TurnEvent } from './events.js';
import { conversationFeedback } from './feedback.js';
import { bargeInOn, type Listening } from './listen.js';
import type { LoopState } from './loop-state.js';
import { shareWithoutReset } from './share-without-reset.js';
import type { AfterIo, Earcons, Player, ReplyModel, Synthesizer } from './ports.js';
import { takeTurns } from './take-turns.js';

export interface AnswerTurnsDeps {
  config: Pick<HarkConfig, 'speech' | 'bargeIn'>;
  replyModel: ReplyModel;
  synthesizer: Synthesizer;
  player: Player;
  earcons: Earcons;
  /** Input faster than real time: turns wait for each other and nobody talks over anybody. */
  queue: boolean;
  /** Cuts the turn under way (its record still comes out), and no other starts. */
  shutdown: Observable<unknown>;
  /** Cuts the turn under way, as a stop phrase would (the status page's stop button). */
  stops?: Observable<unknown> | undefined;
  /** Where a turn builds its stages once its reply request is out (see requestFirst). */
  afterIo: AfterIo;
  now: () => number;
}

/**
 * The gate's verdicts → turns, one at a time, each asking with the conversation's history: the
 * speaking half (see answerQuery). A turn is cut by the user talking over it, a stop phrase, the
 * next query or shutdown; a held guess is dropped when its words are retracted.
 */
export function answer(
  listening: Pick<Listening, 'verdicts' | 'interruptions' | 'transcripts'>,
  state$: Observable<LoopState>,
  deps: AnswerTurnsDeps,
): Observable<TurnEvent> {
  const { transcripts } = listening;
  const answerOne = answerQuery({
    speech: deps.config.speech,
    conversation: conversationFeedback(state$),
    replyModel: deps.replyModel,
    synthesizer: deps.synthesizer,
    player: deps.player,
    earcons: deps.earcons,
    afterIo: deps.afterIo,
    now: deps.now,
  });
  return listening.verdicts.pipe(
    takeTurns(answerOne, {
      interruptions: listening.interruptions.pipe(filter((event) => event.phase === 'confirmed')),
      queue: !bargeInOn(deps),
      shutdown: deps.shutdown,
      stops: deps.stops,
      retractions: transcripts.pipe(
        ofType('retracted'),
        map(({ utteranceId }) => utteranceId),
      ),
      texts: transcripts.pipe(
        ofType('transcript', 'empty', 'transcription-failed'),
        filter((event) => event.type !== 'transcript' || !event.transcript.tentative),
        map((event) =>
          event.type === 'transcript'
            ? { utteranceId: event.transcript.utteranceId, text: event.transcript.text }
            : { utteranceId: event.utteranceId, text: '' },
        ),
      ),
    }),
    shareWithoutReset(),
  );
}

/** Interruptions → the player: speech over hark pauses its reply at once; a resume or a dismissal plays on. */
export function holdReplies(
  interruptions: Observable<InterruptionEvent>,
  player: Player,
): Observable<InterruptionEvent> {
  return interruptions.pipe(
    tap((event) => {
      if (event.phase === 'paused') player.pause();
      if (event.phase === 'resumed' || event.phase === 'dismissed') player.resume();
    }),
  );
}
