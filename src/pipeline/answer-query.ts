import { defer, delayWhen, switchMap, take, tap, type Observable } from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import { messagesFor, queryText, type Conversation } from '../dialog/conversation.js';
import { TurnRecorder } from '../dialog/turn-recorder.js';
import type { Query } from '../dialog/turn.js';
import type { Sentence } from '../speak/sentences.js';
import type { TurnEvent } from './events.js';
import { playSentences } from './play-sentences.js';
import type { AfterIo, Earcons, Player, ReplyModel, Synthesizer } from './ports.js';
import { prefetchAhead } from './prefetch-ahead.js';
import { recordTurn } from './record-turn.js';
import { requestFirst } from './request-first.js';
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
  /** Where the turn's stages are built once its reply request is out (see requestFirst). */
  afterIo: AfterIo;
  now: () => number;
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
        return requestFirst(
          deps.replyModel.reply(messagesFor(remembered, text, query.audio)),
          (events) =>
            events.pipe(
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
            ),
          deps.afterIo,
        );
      }),
    );
}
