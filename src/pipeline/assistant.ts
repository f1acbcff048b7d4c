import {
  BehaviorSubject,
  combineLatest,
  concatMap,
  EMPTY,
  defer,
  distinctUntilChanged,
  endWith,
  filter,
  from,
  identity,
  ignoreElements,
  map,
  merge,
  scan,
  shareReplay,
  takeUntil,
  tap,
  withLatestFrom,
  type Observable,
  type OperatorFunction,
} from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import {
  afterNotice,
  afterSaying,
  afterTurn,
  afterVerdict,
  newConversation,
  type Conversation,
} from '../dialog/conversation.js';
import type { GatePolicy } from '../dialog/gate.js';
import type { AssistantState } from '../dialog/turn.js';
import type { Endpoint } from '../listen/speech-events.js';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE_HZ } from '../listen/vad.js';
import type { Logger } from '../system/logger.js';
import { admitTranscripts } from './admit-transcripts.js';
import { answerQuery } from './answer-query.js';
import { cancelEcho } from './cancel-echo.js';
import { decideEndpoints } from './decide-endpoints.js';
import { ofType, type AssistantEvent, type GateEvent, type InterruptionEvent } from './events.js';
import type {
  AfterIo,
  Announcement,
  WakeWordDetector,
  EchoCanceller,
  Earcons,
  Notice,
  Player,
  ReplyModel,
  Synthesizer,
  Transcriber,
  Vad,
} from './ports.js';
import { queryRecordings } from './query-recordings.js';
import { reportBargeIns } from './report-barge-ins.js';
import { ringStops } from './ring-alarms.js';
import { sayUnprompted } from './say-unprompted.js';
import { scoreVoice } from './score-voice.js';
import { segment } from './segment.js';
import { judgeBargeIn } from './judge-barge-in.js';
import { keepPace } from './keep-pace.js';
import { meterLevels } from './meter-levels.js';
import { once } from './once.js';
import { takeTurns } from './take-turns.js';
import { toFrames } from './to-frames.js';
import { transcribeUtterances } from './transcribe-utterances.js';
import { wakeGate } from './wake-gate.js';

/** The "wake phrase" of a listen button: what the log and the page show for it. */
export const LISTEN_BUTTON = '(listen button)';

export interface AssistantDeps {
  config: Pick<
    HarkConfig,
    'vad' | 'bargeIn' | 'listen' | 'history' | 'speech' | 'endpoint' | 'reply' | 'wake' | 'tools'
  >;
  vad: Vad;
  /** Takes hark's own voice out of the microphone, when hark plays and records on this machine. */
  echo?: EchoCanceller | undefined;
  /**
   * The wake word heard on the device: nothing is sent to the service before it (see wakeGate).
   * `config.listen.wakePhrases` then count only while it cannot hear (WakeWordDetector.failedToLoad).
   */
  wake?: WakeWordDetector | undefined;
  transcriber: Transcriber;
  replyModel: ReplyModel;
  /** Timers and alarms falling due: rung (earcon and announcement, repeated) once hark is idle. */
  announcements?: Observable<Announcement> | undefined;
  /** What the home asks hark to say (an announcement, a question): said once each, in order, once hark is idle. */
  notices?: Observable<Notice> | undefined;
  synthesizer: Synthesizer;
  player: Player;
  earcons: Earcons;
  logger: Logger;
  /** Input faster than real time: turns wait for each other and nobody talks over anybody. */
  queue: boolean;
  /** Stops listening, cuts the turn under way (its record still comes out) and ends the loop. */
  shutdown: Observable<unknown>;
  /** Cuts the turn, ring or notice under way, as a stop phrase would (the status page's stop button). */
  stops?: Observable<unknown> | undefined;
  /** Listens for a command as if the wake word had been said (a button on the board, Home Assistant's). */
  listens?: Observable<unknown> | undefined;
  /** Whether anyone looks at the meters (a status page): while false, none are made. */
  metering?: Observable<boolean> | undefined;
  /** Where a turn builds its stages once its reply request is out (see requestFirst). */
  afterIo: AfterIo;
  now: () => number;
}

/**
 * The voice loop, 16 kHz mono PCM in, everything that happens out:
 *
 *   PCM → frames → echo cancelled → VAD → segmenter → utterances → transcripts → gate → queries
 *     → reply → speakable text → sentences → synthesis (look-ahead) → player → turns
 *
 * Speech while hark speaks pauses the reply at once; it plays on from there unless the speech
 * lasts `bargeIn.minSpeechMs`. A turn is cut (every request of it unsubscribed, unplayed audio
 * dropped) by such an interruption, a stop phrase, the next query, or shutdown. What hark is
 * doing and what the conversation remembers are streams folded from the turns, read by the
 * stages that need them. Completes when the input ends and the last turn is over.
 */
export function assistant(deps: AssistantDeps): OperatorFunction<Buffer, AssistantEvent> {
  return (pcm) =>
    defer(() => {
      const { config, logger, now, player, earcons, wake } = deps;
      const bargeIn = config.bargeIn.enabled && !deps.queue;
      // Half-duplex (not listening while hark speaks) only when barge-in is off in a live room; queued input is all kept.
      const fullDuplex = config.bargeIn.enabled || deps.queue;
      const policy = { ...config.history, followUpMs: config.listen.followUpMs };
      const state = new BehaviorSubject<AssistantState>('listening');
      // A timer ringing or a notice said while no turn is under way: what hears the room takes it as hark speaking.
      const sounding = new BehaviorSubject(false);
      const heardState = combineLatest([state, sounding]).pipe(
        map(([s, on]): AssistantState => (on && s === 'listening' ? 'speaking' : s)),
        distinctUntilChanged(),
        shareReplay({ bufferSize: 1, refCount: false }),
      );
      const endpoint = new BehaviorSubject<Endpoint | undefined>(undefined);
      // A model that hears gets the recording the moment the user stops: nothing to guess at pauses.
      const hears = config.reply.input === 'audio';
      const speculateAfterMs = config.endpoint.speculate && !hears ? config.endpoint.speculateAfterMs : undefined;
      const conversation = new BehaviorSubject<Conversation>(newConversation());
      const audio = pcm.pipe(takeUntil(deps.shutdown), once());

      // Listening half.
      const scored = audio.pipe(
        toFrames(VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE_HZ, now),
        deps.echo ? cancelEcho(deps.echo, VAD_SAMPLE_RATE_HZ, logger) : identity,
        tap((frame) => wake?.push(frame.samples)),
        scoreVoice(deps.vad, logger, {
          fallbackGateDbfs: config.vad.energyGateDbfs,
          ownVoiceBelowDb: config.bargeIn.ownVoiceBelowDb,
        }),
        once(),
      );
      const heard = scored.pipe(
        segment(
          { ...config.vad, sampleRateHz: VAD_SAMPLE_RATE_HZ, speculateAfterMs },
          combineLatest([heardState, endpoint]).pipe(
            map(([s, decided]) => ({
              speaking: s === 'speaking',
              listening: fullDuplex || s !== 'speaking',
              endpoint: decided,
            })),
          ),
        ),
        once(),
      );
      // Wake words heard while there is input, and until its last audio is scored (a file read fast ends first).
      const inputEnded = heard.pipe(ignoreElements(), endWith(true));
      const scoredAll = inputEnded.pipe(concatMap(() => from(wake?.drain() ?? [true])));
      const detections = wake ? wake.detections.pipe(takeUntil(scoredAll)) : EMPTY;
      // Speech while hark is busy pauses the reply, then resumes it or confirms the interruption;
      // or, when talking over hark needs the wake word, the wake word does (speech again, should
      // the detector not hear: as with the transcript's wake phrase).
      const bySpeech = heard.pipe(judgeBargeIn(config.bargeIn, heardState));
      const interruptions: Observable<InterruptionEvent> = !bargeIn
        ? EMPTY
        : wake && config.wake.bargeIn === 'wake-word'
          ? merge(
              detections.pipe(
                withLatestFrom(heardState),
                filter(([, s]) => s !== 'listening'),
                map(([detection]): InterruptionEvent => ({
                  type: 'interruption',
                  phase: 'confirmed',
                  atMs: detection.atMs,
                  utteranceId: undefined,
                })),
              ),
              bySpeech.pipe(filter(() => wake.failedToLoad === true)),
            ).pipe(once())
          : bySpeech.pipe(once());
      // Waiting for the wake word, only what follows it (or a follow-up) is ever sent anywhere.
      const listened = wake
        ? heard.pipe(
            wakeGate(
              { detector: wake, minSpeechMs: config.vad.minSpeechMs, bargeIn: config.wake.bargeIn },
              combineLatest([heardState, conversation]).pipe(
                map(([s, remembered]) => ({ state: s, followUp: now() < remembered.followUpUntil })),
              ),
            ),
            once(),
          )
        : heard;
      // A wake word heard on the device opened the gate: the transcript need not begin with a
      // wake phrase (listen.wakePhrases), unless the detector cannot hear.
      const heardOnDevice = { ...config.listen, wakePhrases: [] };
      const gatePolicy = (): GatePolicy => (wake && !wake.failedToLoad ? heardOnDevice : config.listen);
      const transcripts = listened.pipe(
        transcribeUtterances(deps.transcriber, logger, now, heardState.pipe(map((s) => s === 'listening'))),
        takeUntil(deps.shutdown),
        once(),
      );
      // When a guess comes back, what it says decides how long the pause must be to end the turn.
      const endpoints = transcripts.pipe(
        decideEndpoints(config.endpoint),
        tap((decided) => endpoint.next(decided)),
      );
      const verdicts = merge(
        transcripts.pipe(admitTranscripts(gatePolicy, heardState, conversation, interruptions, now)),
        hears ? listened.pipe(queryRecordings(now)) : EMPTY,
        detections.pipe(map((d): GateEvent => ({ type: 'wake', phrase: d.model, score: d.score, atMs: d.atMs }))),
        (deps.listens ?? EMPTY).pipe(
          takeUntil(inputEnded),
          map((): GateEvent => ({ type: 'wake', phrase: LISTEN_BUTTON })),
        ),
      ).pipe(once());

      // Speaking half: one turn per query.
      const answer = answerQuery({
        speech: config.speech,
        conversation,
        replyModel: deps.replyModel,
        synthesizer: deps.synthesizer,
        player,
        earcons,
        afterIo: deps.afterIo,
        now,
      });
      const turns = verdicts.pipe(
        takeTurns(answer, {
          interruptions: interruptions.pipe(filter((event) => event.phase === 'confirmed')),
          queue: !bargeIn,
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
        once(),
      );

      // Feedback: what hark is doing, and what the conversation remembers.
      const states = turns.pipe(
        ofType('state'),
        distinctUntilChanged((a, b) => a.state === b.state),
        tap((event) => state.next(event.state)),
      );
      const bargeIns = turns.pipe(reportBargeIns(heard));

      const { rings, notices } = sayUnprompted({
        ...deps,
        state,
        sounding,
        stops: ringStops(verdicts, interruptions, merge(deps.shutdown, inputEnded), deps.stops),
        inputEnded,
      });

      const remembering = merge(
        turns.pipe(ofType('turn', 'saying')),
        verdicts.pipe(ofType('wake', 'stop')),
        notices,
      ).pipe(
        scan((remembered, event) => {
          if (event.type === 'turn') return afterTurn(remembered, event.turn, policy);
          if (event.type === 'saying') return afterSaying(remembered, event.sentence);
          if (event.type === 'notice') {
            const { kind, text } = event.notice;
            const said = event.phase === 'spoken' || (event.phase === 'stopped' && event.by !== 'shutdown');
            const phase = event.phase === 'started' ? 'started' : said ? 'said' : 'unsaid';
            return afterNotice(remembered, { kind, text, phase }, now(), policy);
          }
          return afterVerdict(remembered, event, now(), policy);
        }, conversation.value),
        tap((remembered) => conversation.next(remembered)),
      );

      const holding = interruptions.pipe(
        tap((event) => {
          if (event.phase === 'paused') player.pause();
          if (event.phase === 'resumed' || event.phase === 'dismissed') player.resume();
        }),
      );

      // Sounds that say what is happening, for a user who cannot see hark.
      const sounds = merge(
        verdicts.pipe(
          ofType('wake'),
          tap(() => earcons.play('listening')),
        ),
        transcripts.pipe(
          ofType('transcription-failed'),
          tap(() => earcons.play('error')),
        ),
      );

      earcons.play('listening');
      return merge(
        heard,
        wake ? listened.pipe(ofType('no-wake-word')) : EMPTY,
        interruptions,
        transcripts,
        verdicts,
        states,
        turns.pipe(ofType('turn', 'tool', 'saying')),
        bargeIns,
        rings,
        notices,
        scored.pipe(meterLevels({ on: deps.metering, now, wake: wake?.scores, echo: deps.echo })),
        // Input faster than real time is behind by design.
        deps.queue ? EMPTY : scored.pipe(keepPace(wake, now)),
        merge(remembering, holding, sounds, endpoints).pipe(ignoreElements()),
      );
    });
}
