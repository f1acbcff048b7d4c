import {
  EMPTY,
  concatMap,
  endWith,
  filter,
  from,
  identity,
  ignoreElements,
  map,
  merge,
  takeUntil,
  tap,
  withLatestFrom,
  type Observable,
} from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import type { GatePolicy } from '../dialog/gate.js';
import type { AssistantState } from '../dialog/turn.js';
import type { Endpoint, SegmenterEvent } from '../listen/speech-events.js';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE_HZ } from '../listen/vad.js';
import type { Logger } from '../system/logger.js';
import { admitTranscripts } from './admit-transcripts.js';
import { cancelEcho } from './cancel-echo.js';
import { decideEndpoints } from './decide-endpoints.js';
import {
  ofType,
  type AssistantEvent,
  type GateEvent,
  type InterruptionEvent,
  type MeterEvent,
  type PaceEvent,
  type TranscriptEvent,
} from './events.js';
import { conversationFeedback, segmenterFeedback, heardStateFeedback, wakeGateFeedback } from './feedback.js';
import { judgeBargeIn } from './judge-barge-in.js';
import { keepPace } from './keep-pace.js';
import type { LoopState } from './loop-state.js';
import { meterLevels } from './meter-levels.js';
import { shareWithoutReset } from './share-without-reset.js';
import type { EchoCanceller, Transcriber, Vad, WakeWordDetection, WakeWordDetector } from './ports.js';
import { queryRecordings } from './query-recordings.js';
import { scoreVoice } from './score-voice.js';
import { segment } from './segment.js';
import { toFrames } from './to-frames.js';
import { transcribeUtterances } from './transcribe-utterances.js';
import { wakeGate } from './wake-gate.js';

/** The "wake phrase" of a listen button: what the log and the page show for it. */
export const LISTEN_BUTTON = '(listen button)';

export interface ListenDeps {
  config: Pick<HarkConfig, 'vad' | 'bargeIn' | 'listen' | 'endpoint' | 'reply' | 'wake'>;
  vad: Vad;
  /** Takes hark's own voice out of the microphone, when hark plays and records on this machine. */
  echo?: EchoCanceller | undefined;
  /**
   * The wake word heard on the device: nothing is sent to the service before it (see wakeGate).
   * `config.listen.wakePhrases` then count only while it cannot hear (WakeWordDetector.failedToLoad).
   */
  wake?: WakeWordDetector | undefined;
  transcriber: Transcriber;
  logger: Logger;
  /** Input faster than real time: turns wait for each other and nobody talks over anybody. */
  queue: boolean;
  /** Stops listening. */
  shutdown: Observable<unknown>;
  /** Listens for a command as if the wake word had been said (a button on the board, Home Assistant's). */
  listens?: Observable<unknown> | undefined;
  /** Whether anyone looks at the meters (a status page): while false, none are made. */
  metering?: Observable<boolean> | undefined;
  now: () => number;
}

/** What the listening half hears, each stage once however many read it. */
export interface Listening {
  /** What it says, in order: speech heard (listen events), speech never sent (no wake word), interruptions, transcripts, verdicts. */
  events: Observable<AssistantEvent>;
  /** Speech, utterances and blips, as the segmenter cut them. */
  listenEvents: Observable<SegmenterEvent>;
  /** Speech while hark is busy: the reply paused, resumed, or interrupted. */
  interruptions: Observable<InterruptionEvent>;
  transcripts: Observable<TranscriptEvent>;
  /** The gate's verdicts: queries, wake words (heard on the device, said, or a button) and stop phrases. */
  verdicts: Observable<GateEvent>;
  /** How long the pause must be to end an utterance, decided from a guess at its words (for the segmenter). */
  endpoints: Observable<Endpoint | undefined>;
  /** The page's meters, and how the listener keeps up with the microphone. */
  levels: Observable<MeterEvent | PaceEvent>;
  /** Emits once the input has ended and its last audio is heard. */
  inputEnded: Observable<true>;
}

/** The user may talk over hark: barge-in is on, and the input is live (queued input is all kept). */
export function bargeInOn(deps: { config: Pick<HarkConfig, 'bargeIn'>; queue: boolean }): boolean {
  return deps.config.bargeIn.enabled && !deps.queue;
}

/**
 * 16 kHz mono PCM → the gate's verdicts, reading the loop's state where it feeds back:
 *
 *   PCM → frames → echo cancelled → VAD → segmenter → (wake gate) → transcripts → gate → verdicts
 *
 * beside them the barge-in judge's interruptions and the endpoint decided from a guess's words.
 */
export function listen(audio: Observable<Buffer>, state$: Observable<LoopState>, deps: ListenDeps): Listening {
  const { config, logger, now, wake } = deps;
  const hearing = heardStateFeedback(state$);
  const conversation = conversationFeedback(state$);
  // Half-duplex (not listening while hark speaks) only when barge-in is off in a live room; queued input is all kept.
  const fullDuplex = config.bargeIn.enabled || deps.queue;
  // A model that hears gets the recording the moment the user stops: nothing to guess at pauses.
  const hears = config.reply.input === 'audio';
  const speculateAfterMs = config.endpoint.speculate && !hears ? config.endpoint.speculateAfterMs : undefined;

  const scored = audio.pipe(
    toFrames(VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE_HZ, now),
    deps.echo ? cancelEcho(deps.echo, VAD_SAMPLE_RATE_HZ, logger) : identity,
    tap((frame) => wake?.push(frame.samples)),
    scoreVoice(deps.vad, logger, {
      fallbackGateDbfs: config.vad.energyGateDbfs,
      ownVoiceBelowDb: config.bargeIn.ownVoiceBelowDb,
    }),
    shareWithoutReset(),
  );
  const listenEvents = scored.pipe(
    segment(
      { ...config.vad, sampleRateHz: VAD_SAMPLE_RATE_HZ, speculateAfterMs },
      segmenterFeedback(state$, fullDuplex),
    ),
    shareWithoutReset(),
  );
  // Wake words heard while there is input, and until its last audio is scored (a file read fast ends first).
  const inputEnded = listenEvents.pipe(ignoreElements(), endWith(true as const));
  const scoredAll = inputEnded.pipe(concatMap(() => from(wake?.drain() ?? [true])));
  const detections = wake ? wake.detections.pipe(takeUntil(scoredAll)) : EMPTY;
  const interruptions = interruptionsOf(listenEvents, hearing, detections, deps);
  // Waiting for the wake word, only what follows it (or a follow-up) is ever sent anywhere.
  const listened = wake
    ? listenEvents.pipe(
        wakeGate(
          { detector: wake, minSpeechMs: config.vad.minSpeechMs, bargeIn: config.wake.bargeIn },
          wakeGateFeedback(hearing, conversation, now),
        ),
        shareWithoutReset(),
      )
    : listenEvents;
  // A wake word heard on the device opened the gate: the transcript need not begin with a
  // wake phrase (listen.wakePhrases), unless the detector cannot hear.
  const heardOnDevice = { ...config.listen, wakePhrases: [] };
  const gatePolicy = (): GatePolicy => (wake && !wake.failedToLoad ? heardOnDevice : config.listen);
  const transcripts = listened.pipe(
    transcribeUtterances(deps.transcriber, logger, now, hearing.pipe(map((s) => s === 'listening'))),
    takeUntil(deps.shutdown),
    shareWithoutReset(),
  );
  const verdicts = merge(
    transcripts.pipe(admitTranscripts(gatePolicy, hearing, conversation, interruptions, now)),
    hears ? listened.pipe(queryRecordings(now)) : EMPTY,
    detections.pipe(map((d): GateEvent => ({ type: 'wake', phrase: d.model, score: d.score, atMs: d.atMs }))),
    (deps.listens ?? EMPTY).pipe(
      takeUntil(inputEnded),
      map((): GateEvent => ({ type: 'wake', phrase: LISTEN_BUTTON })),
    ),
  ).pipe(shareWithoutReset());

  return {
    events: merge(
      listenEvents,
      wake ? listened.pipe(ofType('no-wake-word')) : EMPTY,
      interruptions,
      transcripts,
      verdicts,
    ),
    listenEvents,
    interruptions,
    transcripts,
    verdicts,
    // When a guess comes back, what it says decides how long the pause must be to end the turn.
    endpoints: transcripts.pipe(decideEndpoints(config.endpoint)),
    levels: merge(
      scored.pipe(meterLevels({ on: deps.metering, now, wake: wake?.scores, echo: deps.echo })),
      // Input faster than real time is behind by design.
      deps.queue ? EMPTY : scored.pipe(keepPace(wake, now)),
    ),
    inputEnded,
  };
}

/**
 * Speech while hark is busy pauses the reply, then resumes it or confirms the interruption; or,
 * when talking over hark needs the wake word, the wake word does (speech again, should the
 * detector not hear: as with the transcript's wake phrase). Nothing when barge-in is off.
 */
function interruptionsOf(
  listenEvents: Observable<SegmenterEvent>,
  hearing: Observable<AssistantState>,
  detections: Observable<WakeWordDetection>,
  deps: ListenDeps,
): Observable<InterruptionEvent> {
  const { config, wake } = deps;
  if (!bargeInOn(deps)) return EMPTY;
  const bySpeech = listenEvents.pipe(judgeBargeIn(config.bargeIn, hearing));
  if (!wake || config.wake.bargeIn !== 'wake-word') return bySpeech.pipe(shareWithoutReset());
  const byWakeWord = detections.pipe(
    withLatestFrom(hearing),
    filter(([, s]) => s !== 'listening'),
    map(([detection]): InterruptionEvent => ({
      type: 'interruption',
      phase: 'confirmed',
      atMs: detection.atMs,
      utteranceId: undefined,
    })),
  );
  return merge(byWakeWord, bySpeech.pipe(filter(() => wake.failedToLoad === true))).pipe(shareWithoutReset());
}
