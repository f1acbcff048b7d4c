import type { Observable } from 'rxjs';
import type { EarconKind, Earcons } from '../audio/earcons.js';
import type { EchoVerdict } from '../audio/echo/echo-trust.js';
import type { PlaybackError } from '../audio/playback-error.js';
import type { ReplyEvent } from '../contract/reply.js';
import type { Message } from '../dialog/conversation.js';
import type { ToolActivity } from '../dialog/tool-calls.js';
import type { WakeWordDetection, WakeWordScores } from '../listen/wake/wake-decider.js';
import type { WakeBacklog } from '../listen/wake/wake-pace.js';
import type { Announcement } from '../tools/timer-book.js';

export type { Announcement, EarconKind, Earcons, EchoVerdict, WakeBacklog, WakeWordDetection, WakeWordScores };

/**
 * Every outside capability the voice loop uses: the pipeline sees only these. Implementations
 * (in audio/, listen/, service/) fit them by shape and are wired in app/; tests use fakes.
 * A call that returns an Observable starts when subscribed and is cancelled by unsubscribing.
 * A type the implementing module must name itself (an earcon, an echo verdict, an announcement,
 * a wake word heard) is declared there once and re-exported above.
 */

/** Runs work once the event loop has dealt with the I/O at hand (Node: `setImmediate`); the function returned cancels it. */
export type AfterIo = (work: () => void) => () => void;

/** Voice activity: the probability that a frame of 16 kHz audio is speech. */
export interface Vad {
  readonly name: 'silero' | 'energy';
  readonly frameSamples: number;
  /** Asked for each frame as it arrives, perhaps before the last is answered: answered in order. */
  probability(frame: Int16Array): Promise<number> | number;
  reset(): void;
  close(): Promise<void>;
}

export interface TranscribeResult {
  text: string;
  tokens?: number;
}

export interface Transcriber {
  /** One WAV of at most 30 s; `prompt` carries the tail of what came before. */
  transcribe(wav: Buffer, prompt: string | undefined): Observable<TranscribeResult>;
  /** Speech has begun: a transcription will be asked for soon (open a connection now). */
  prepare?(): void;
}

export interface ReplyModel {
  /** The reply to the conversation so far, streamed; a model with tools also reports the calls it runs. */
  reply(messages: Message[]): Observable<ReplyEvent | ToolActivity>;
}

/**
 * Something hark is asked to say from outside the conversation (by Home Assistant): an
 * announcement, or a question whose answer hark then listens for without the wake word.
 */
export interface Notice {
  id: string;
  kind: 'announce' | 'ask';
  text: string;
  /** When it arrived (monotonic ms): what its latency is measured from. */
  arrivedAt: number;
}

export interface Synthesizer {
  readonly sampleRateHz: number;
  /** 16-bit mono PCM at `sampleRateHz`, chunk by chunk as it arrives. */
  synthesize(text: string): Observable<Buffer>;
}

/**
 * Where hark's voice goes. Audio is queued; the player's clock says how much has been played,
 * which is how hark knows what part of a reply the user heard.
 */
export interface Player {
  readonly sampleRateHz: number;
  /** Queues 16-bit mono PCM; returns the timeline position (in samples) where it ends. */
  write(pcm: Buffer): number;
  playedSamples(): number;
  writtenSamples(): number;
  queuedMs(): number;
  /** Completes once no more than `ms` of audio is left to play. */
  queuedBelow(ms: number): Observable<void>;
  /** Drops everything not yet played, at once. */
  stop(): void;
  /** Holds playback at once, keeping what was not played; `resume` plays on from exactly there. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
  /** Each failure to play (hot), saying which audio on the timeline it cost: that was never heard. */
  readonly failures: Observable<PlaybackError>;
}

/**
 * Takes hark's own voice out of the microphone's audio: what the player played (replies and
 * earcons) is the reference, lined up with the microphone by the capture time of each frame.
 */
export interface EchoCanceller {
  /** Samples per frame of 16 kHz audio (a divisor of the VAD's frame). */
  readonly frameSamples: number;
  /**
   * One frame whose first sample was captured at `captureTimeMs`, on the monotonic clock the
   * player's clock runs on; returns the frame without the echo.
   */
  cancel(mic: Int16Array, captureTimeMs: number): Int16Array;
  /**
   * Whether whole frames from `captureTimeMs` on are out of reach of anything hark played: then
   * they pass as they are (nothing to cancel, nothing to measure), and need not be given to `cancel`.
   */
  passes(mic: Int16Array, captureTimeMs: number): boolean;
  /** What is known about the echo in the frame just cancelled. */
  lastVerdict(): EchoVerdict;
  state(): EchoState;
}

/** What the echo canceller is doing, for logs and a status page. */
export interface EchoState {
  /** Something hark played reaches the microphone now. */
  active: boolean;
  /** Delay from writing to the player to hearing at the microphone, ms (estimated, else assumed). */
  delayMs: number;
  /** How sure the delay estimate is (0..1), null before any. */
  delayConfidence: number | null;
  /** How much of what the microphone hears lately is what hark played, at that delay (0..1), null before a delay is known. */
  coherence: number | null;
  /** Echo return loss enhancement, estimated, dB; null before hark has played anything. */
  erleDb: number | null;
  /** The adaptive filter has adapted to the echo path. */
  adapted: boolean;
  /** Levels of the last frame, dBFS: microphone, output, and the echo taken out. */
  micDbfs: number;
  outDbfs: number;
  echoDbfs: number;
}

/**
 * Listens for wake words in a stream of 16 kHz mono audio. `push` never waits for inference:
 * audio is buffered and scored off the caller's path, and results arrive on the two hot
 * streams below, in stream order. State (audio context, features, the refractory period) is
 * kept across pushes. Stream time counts every sample pushed, so push every frame the
 * segmenter sees and their times agree.
 */
export interface WakeWordDetector {
  /** The names detections can carry. */
  readonly models: readonly string[];
  /** Takes a frame of any length (hark's VAD frames are 512 samples). */
  push(frame: Int16Array): void;
  readonly detections: Observable<WakeWordDetection>;
  readonly scores: Observable<WakeWordScores>;
  /** Once everything pushed so far has been scored (and its detections emitted); at once when nothing is waiting. */
  drain(): Promise<void> | void;
  /** Forgets what was heard (audio not yet scored included) but keeps the stream clock. */
  reset(): void;
  close(): Promise<void>;
  /** It cannot hear (its models did not load): speech passes, and the transcript's wake phrase decides. */
  readonly failedToLoad?: boolean;
  /** Audio pushed but not scored yet (a live detector that falls behind the microphone). */
  readonly backlogMs?: number;
  /** Each change of how much it does per step to keep up, and each drop of audio it could not score. */
  readonly backlog?: Observable<WakeBacklog>;
}
