import {
  defer,
  distinctUntilChanged,
  ignoreElements,
  merge,
  takeUntil,
  tap,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import { answer, holdReplies, type AnswerTurnsDeps } from './answer.js';
import { ofType, type AssistantEvent, type GateEvent, type TranscriptEvent } from './events.js';
import { idleFeedback, loopStore } from './feedback.js';
import { listen, type ListenDeps } from './listen.js';
import { shareWithoutReset } from './share-without-reset.js';
import type { Announcement, Earcons, Notice } from './ports.js';
import { reportBargeIns } from './report-barge-ins.js';
import { ringStops } from './ring-alarms.js';
import { sayUnprompted } from './say-unprompted.js';

export interface AssistantDeps extends ListenDeps, AnswerTurnsDeps {
  config: Pick<
    HarkConfig,
    'vad' | 'bargeIn' | 'listen' | 'history' | 'speech' | 'endpoint' | 'reply' | 'wake' | 'tools'
  >;
  /** Timers and alarms falling due: rung (earcon and announcement, repeated) once hark is idle. */
  announcements?: Observable<Announcement> | undefined;
  /** What the home asks hark to say (an announcement, a question): said once each, in order, once hark is idle. */
  notices?: Observable<Notice> | undefined;
  /** Stops listening, cuts the turn under way (its record still comes out) and ends the loop. */
  shutdown: Observable<unknown>;
  /** Cuts the turn, ring or notice under way, as a stop phrase would (the status page's stop button). */
  stops?: Observable<unknown> | undefined;
}

/**
 * The voice loop, 16 kHz mono PCM in, everything that happens out:
 *
 *   listen(audio, state$)     PCM → frames → echo cancelled → VAD → segmenter → transcripts → gate → verdicts
 *   answer(verdicts, state$)  → one turn at a time: reply → speakable text → sentences → synthesis → player
 *   sayUnprompted(idle)       timers rung and the home's notices said, while hark is idle
 *
 * Speech while hark speaks pauses the reply at once; it plays on from there unless the speech
 * lasts `bargeIn.minSpeechMs`. A turn is cut (every request of it unsubscribed, unplayed audio
 * dropped) by such an interruption, a stop phrase, the next query, or shutdown. What hark is
 * doing, what sounds, the endpoint decided and what the conversation remembers are one state,
 * `state$`, folded from the events below (see loop-state.ts) and read where it feeds back (see
 * feedback.ts). Completes when the input ends and the last turn is over.
 */
export function assistant(deps: AssistantDeps): OperatorFunction<Buffer, AssistantEvent> {
  return (pcm) =>
    defer(() => {
      const { config, earcons } = deps;
      const { state$, dispatch } = loopStore({ ...config.history, followUpMs: config.listen.followUpMs }, deps.now);
      const audio = pcm.pipe(takeUntil(deps.shutdown), shareWithoutReset());
      const listening = listen(audio, state$, deps);
      const turns = answer(listening, state$, deps);
      const { verdicts, interruptions, inputEnded } = listening;
      const { rings, notices } = sayUnprompted({
        ...deps,
        idle: idleFeedback(state$),
        sounding: (on) => dispatch({ type: 'sounding', on }),
        stops: ringStops(verdicts, interruptions, merge(deps.shutdown, inputEnded), deps.stops),
        inputEnded,
      });

      // What flows back up into state$, each event folded in as it passes (read in feedback.ts):
      // what the turns say hark is doing (before it comes out), what the conversation remembers,
      // the endpoint decided from a guess's words; and, above, a ring or a notice sounding.
      const statesFolded = turns.pipe(
        ofType('state'),
        distinctUntilChanged((a, b) => a.state === b.state),
        tap((event) => dispatch(event)),
      );
      const conversationFolded = merge(
        turns.pipe(ofType('turn', 'saying')),
        verdicts.pipe(ofType('wake', 'stop')),
        notices,
      ).pipe(tap((event) => dispatch(event)));
      const endpointsFolded = listening.endpoints.pipe(tap((endpoint) => dispatch({ type: 'endpoint', endpoint })));

      earcons.play('listening');
      return merge(
        listening.events,
        statesFolded,
        turns.pipe(ofType('turn', 'tool', 'saying')),
        turns.pipe(reportBargeIns(listening.listenEvents)),
        rings,
        notices,
        listening.levels,
        merge(
          conversationFolded,
          holdReplies(interruptions, deps.player),
          soundCues(verdicts, listening.transcripts, earcons),
          endpointsFolded,
        ).pipe(ignoreElements()),
      );
    });
}

/** Sounds that say what is happening, for a user who cannot see hark: a wake word heard, a transcription failed. */
function soundCues(
  verdicts: Observable<GateEvent>,
  transcripts: Observable<TranscriptEvent>,
  earcons: Earcons,
): Observable<unknown> {
  return merge(
    verdicts.pipe(
      ofType('wake'),
      tap(() => earcons.play('listening')),
    ),
    transcripts.pipe(
      ofType('transcription-failed'),
      tap(() => earcons.play('error')),
    ),
  );
}
