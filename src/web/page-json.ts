/**
 * What the status page and its JSON API send: plain JSON, made from the voice loop's events
 * (by app/page/page-events.ts, beside the log written from the same events). Every event has a
 * `type`; the page shows the ones it knows and lists any other as it is.
 */

/** One turn as the page shows it: the turn log's fields, with the reply split where the user cut in. */
export interface TurnSummary {
  /** Counts the turns since hark started. */
  id: number;
  /** When it ended, wall-clock ISO time. */
  endedAt: string;
  transcript: string;
  reply: string;
  /** What the user heard of the reply. */
  heard: string;
  /** The rest of the reply, never heard: after the cut, for an interrupted reply. */
  unheard: string;
  interrupted: string | false;
  /** Why it failed: the stage, the error, and what to do about it when hark knows. */
  failed?: { stage: string; error: string; fix?: string };
  usage: { inputTokens: number; outputTokens: number } | null;
  /** Milliseconds from the end of speech to each step (the turn log's latencyMs). */
  latencyMs: Record<string, number>;
  audioMs: { written: number; played: number };
}

/** The page's state once a file run's input has ended: hark hears nothing more, and its page stays up. */
export const INPUT_ENDED = 'input ended';

export type KnownPageEvent =
  /** What hark is doing: an AssistantState, or INPUT_ENDED. */
  | { type: 'state'; state: string }
  | { type: 'muted'; muted: boolean }
  | {
      type: 'meter';
      levelDbfs: number;
      vad: number;
      wake?: Record<string, number>;
      echo?: { active: boolean; delayMs: number; erleDb: number | null; adapted: boolean };
    }
  /** The user started to speak (once per utterance). */
  | { type: 'speech'; utteranceId: number }
  | { type: 'transcript'; utteranceId: number; text: string; tentative: boolean }
  | { type: 'retracted'; utteranceId: number }
  | { type: 'empty'; utteranceId: number }
  | { type: 'transcription-failed'; utteranceId: number; error: string }
  | { type: 'query'; utteranceId: number; text: string }
  | { type: 'wake'; phrase: string; score?: number }
  | { type: 'stop'; text: string }
  | { type: 'ignored'; reason: string; text: string }
  /** hark starts to say a sentence of the reply. */
  | { type: 'saying'; index: number; text: string }
  | { type: 'interruption'; phase: string }
  | { type: 'barge-in'; by: string; onsetToStopMs: number | null; heardMs: number }
  | { type: 'turn'; turn: TurnSummary }
  /** A fact about this run changed (whether MQTT is connected): merged into the snapshot's `about`. */
  | { type: 'about'; about: Record<string, string | number | boolean> }
  /** Timers or alarms ringing, and the ring stopped (by: a stop phrase, the wake word, ...). */
  | { type: 'ring'; phase: 'started' | 'stopped'; ids: string[]; text: string; by?: string }
  /** The listener fell behind the microphone (and is still, every 10 s), or caught up. */
  | { type: 'behind'; lagMs: number; stage: string }
  | { type: 'caught-up'; behindMs: number; worstLagMs: number };

/** A known event, or any other (a tool call, say) passed on as it came. */
export type PageEvent = KnownPageEvent | { type: string; [field: string]: unknown };

/** An entry of the conversation as the page lists it. */
export type ConversationEntry =
  | { kind: 'turn'; turn: TurnSummary }
  /** Something that is not a turn: a failed transcription, a wake word, a stop, a tool call. */
  | { kind: 'event'; at: string; event: PageEvent };

/** What is going on now. */
export interface PageSnapshot {
  /** What hark is doing ('starting' until the voice loop says). */
  state: string;
  muted: boolean;
  /** What hark hears the user say now, as transcribed so far. */
  hearing: { utteranceId: number; text: string; tentative: boolean } | null;
  /** The turn under way: the query and the sentences hark has started to say. */
  answering: { query: string; saying: string[] } | null;
  meter: KnownPageEvent & { type: 'meter' };
  conversation: ConversationEntry[];
  /** How far behind the microphone the listener is, while it is more than a second behind. */
  behind: { lagMs: number; stage: string } | null;
  /** Facts about this run: version, input, player, VAD, wake word, echo canceller. */
  about: Record<string, string | number | boolean>;
}

export interface TurnsReport {
  /** The last turns, oldest first. */
  turns: TurnSummary[];
  /** Per step, over those turns: the median and the 90th percentile, ms. */
  stats: Record<string, { median: number; p90: number; count: number }>;
}
