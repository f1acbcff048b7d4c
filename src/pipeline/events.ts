import { filter, type OperatorFunction } from 'rxjs';
import type { BargeInPhase } from '../dialog/barge-in.js';
import type { ToolActivity } from '../dialog/tool-calls.js';
import type { AssistantState, Interruption, Transcript, Turn, Verdict } from '../dialog/turn.js';
import type { SegmenterEvent } from '../listen/speech-events.js';
import type { WakePace } from '../listen/wake/wake-pace.js';
import type { Sentence } from '../speak/sentences.js';
import type { EchoState, Notice } from './ports.js';

/** Every event that flows through the voice loop, each discriminated by `type`. */

/**
 * What the listener makes of the microphone: speech under way, an utterance, a blip dropped,
 * or (waiting for the wake word) speech that is never sent anywhere.
 */
export type ListenEvent = SegmenterEvent | { type: 'no-wake-word'; utteranceId: number; tentative: boolean };

/**
 * Speech while hark is busy: the reply paused at once, resumed when the speech was not an
 * interruption after all (a cough, a knock, its own echo), or the interruption confirmed.
 * `atMs` is the stream time of the frame that decided it; `utteranceId` the speech judged
 * (none when the wake word interrupted).
 */
export type InterruptionEvent = {
  type: 'interruption';
  phase: BargeInPhase;
  atMs: number | undefined;
  utteranceId: number | undefined;
};

/** What transcription made of an utterance. */
export type TranscriptEvent =
  | { type: 'transcript'; transcript: Transcript }
  /** Speech that transcribed to nothing: never reaches the chat model. */
  | { type: 'empty'; utteranceId: number; audioMs: number }
  | { type: 'transcription-failed'; utteranceId: number; error: Error }
  /** The tentative transcript given out for this utterance no longer stands: the user went on. */
  | { type: 'retracted'; utteranceId: number };

/** The gate's decision about a transcript: a query, a wake phrase alone, a stop, or nothing. */
export type GateEvent = Verdict;

/**
 * A tool the model called in a turn (`turnId`: the utterance id of the turn's query): started,
 * finished or failed (a call still running when the turn was cut fails as "cancelled").
 * `args` and `result` are short summaries; `ms` how long the call took.
 */
export type ToolEvent = ToolActivity & { turnId: number };

/**
 * What stopped a ring (or a notice): a stop phrase, the wake word, a new query, the user talking
 * over it, a stop button, its time running out, or hark stopping.
 */
export type RingStop = 'stop' | 'wake' | 'query' | 'speech' | 'control' | 'timeout' | 'shutdown';

/** Timers or alarms ringing (earcon and announcement, repeated), and the ring stopped. */
export type RingEvent =
  | { type: 'ring'; phase: 'started'; ids: string[]; text: string }
  | { type: 'ring'; phase: 'stopped'; ids: string[]; text: string; by: RingStop };

/**
 * A notice (an announcement or a question) said, from its start: `spoken` to its end, `stopped`
 * part-way (by what; one stopped by hark stopping is said again when it next runs), or `failed`
 * (its speech could not be had). Times are monotonic ms.
 */
export type NoticeEvent =
  | { type: 'notice'; phase: 'started'; notice: Notice }
  | { type: 'notice'; phase: 'spoken'; notice: Notice; timings: NoticeTimings; playedMs: number }
  | { type: 'notice'; phase: 'stopped'; notice: Notice; by: RingStop }
  | { type: 'notice'; phase: 'failed'; notice: Notice; error: Error };

/** When a notice's speech was asked for, its first audio came, and its first sample was played. */
export interface NoticeTimings {
  speechRequest: number;
  firstAudioByte?: number;
  firstPlayed?: number;
}

export type TurnEvent =
  | { type: 'state'; state: AssistantState }
  | ToolEvent
  /** hark starts to speak a sentence of the reply. */
  | { type: 'saying'; sentence: Sentence }
  /** A turn is over, however it ended. */
  | { type: 'turn'; turn: Turn }
  /** The user talked over hark: how, where the interrupting speech began (stream ms), and how long stopping took. */
  | { type: 'barge-in'; by: Interruption; onsetMs: number; onsetToStopMs: number | undefined; heardMs: number };

/**
 * What hark hears, for a status page, a few times a second and only while someone looks: the
 * loudest level since the last meter (dBFS, after the echo canceller), the highest speech
 * probability, each wake word's highest score, and the echo canceller's state.
 */
export type MeterEvent = {
  type: 'meter';
  levelDbfs: number;
  vad: number;
  wake?: Record<string, number>;
  echo?: EchoState;
};

/**
 * How the listener keeps up with the microphone, said rather than lost: it fell behind (how far,
 * and where: scoring speech, or the wake word), it is still behind (every 10 s), it caught up; the
 * wake-word detector does less per step to keep up (or more again); audio it could not score was dropped.
 */
export type PaceEvent =
  | { type: 'behind'; lagMs: number; stage: 'speech' | 'wake word' }
  | { type: 'caught-up'; behindMs: number; worstLagMs: number }
  | { type: 'wake-pace'; pace: WakePace; backlogMs: number }
  | { type: 'dropped'; droppedMs: number };

export type AssistantEvent =
  | ListenEvent
  | InterruptionEvent
  | TranscriptEvent
  | GateEvent
  | TurnEvent
  | RingEvent
  | NoticeEvent
  | MeterEvent
  | PaceEvent;

/** Only the events of the given types, typed as such. */
export function ofType<E extends { type: string }, K extends E['type']>(
  ...types: K[]
): OperatorFunction<E, Extract<E, { type: K }>> {
  return filter((event): event is Extract<E, { type: K }> => (types as string[]).includes(event.type));
}
