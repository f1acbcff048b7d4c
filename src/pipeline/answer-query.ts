import {
  ReplaySubject,
  connectable,
  defer,
  delayWhen,
  finalize,
  subscribeOn,
  switchMap,
  take,
  tap,
  type Observable,
  type SchedulerLike,
} from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import type { ReplyEvent } from '../contract/reply.js';
import { messagesFor, queryText, type Conversation } from '../dialog/conversation.js';
import type { ToolActivity } from '../dialog/tool-calls.js';
import { TurnRecorder } from '../dialog/turn-recorder.js';
import type { Query } from '../dialog/turn.js';
import type { Sentence } from '../speak/sentences.js';
import type { TurnEvent } from './events.js';
import { playSentences } from './play-sentences.js';
import type { Earcons, Player, ReplyModel, Synthesizer } from './ports.js';
import { prefetchAhead } from './prefetch-ahead.js';
import { recordTurn } from './record-turn.js';
import { reportTools } from './report-tools.js';
import { speakableText } from './speakable-text.js';
import { splitSentences } from './split-sentences.js';
import type { TurnControl } from './take-turns.js';

export interface AnswerDeps {
  speech: HarkConfig['speech'];
  conversation: Observable<Conversation>;
  replyModel: ReplyModel;
  synthesizer: Synthesizer;
  player: Player;
  earcons: Earcons;
  now: () => number;
  /**
   * Where a turn is set up once its reply request has been made: late enough for the request to
   * be written first (undici writes on a reused connection at the event loop's next check
   * phase), so the user does not wait for it. Tests pass their virtual scheduler.
   */
  later: SchedulerLike;
}

/**
 * The speaking half of one turn: the reply to the query (with the tools the model called
 * reported beside it) → speakable text → sentences → synthesis (look-ahead) → player → the turn.
 */
export function answerQuery(deps: AnswerDeps): (query: Query, control: TurnControl) => Observable<TurnEvent> {
  const { speech, player, earcons, now } = deps;
  return (query, { cut, start, text: spoken, droppedReplies }) =>
    deps.conversation.pipe(
      take(1),
      switchMap((remembered) => {
        const text = queryText(remembered, query.text);
        const recorder = new TurnRecorder({ ...query, text }, now, droppedReplies);
        const synthesize = (sentence: Sentence): Observable<Buffer> =>
          defer(() => {
            recorder.synthesis(sentence);
            return deps.synthesizer.synthesize(sentence.text).pipe(tap(() => recorder.audio()));
          });
        // The request is made first; the rest of the turn is set up after it has been written
        // (`later`), while it travels: the user is waiting from here. What comes back
        // meanwhile (an error, even) is kept for it.
        const reply = connectable(deps.replyModel.reply(messagesFor(remembered, text, query.audio)), {
          connector: () => new ReplaySubject<ReplyEvent | ToolActivity>(),
          resetOnDisconnect: false,
        });
        const requesting = reply.connect();
        const turn = reply.pipe(
          tap((event) => recorder.reply(event)),
          reportTools(query.transcript.utteranceId, now, (reply) =>
            reply.pipe(
              speakableText(),
              splitSentences(),
              tap((sentence) => recorder.sentence(sentence)),
              prefetchAhead(synthesize, speech.lookahead),
              // A reply to a guess is requested and synthesized at once, but sounds only once confirmed.
              delayWhen(() => start),
              playSentences(player, speech.lowWaterMs),
              recordTurn({ recorder, player, earcons, cut, start, text: spoken, now }),
            ),
          ),
        );
        return turn.pipe(
          subscribeOn(deps.later),
          finalize(() => requesting.unsubscribe()),
        );
      }),
    );
}
