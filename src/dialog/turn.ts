import type { TokenUsage } from '../contract/reply.js';
import type { ToolExchange } from './tool-calls.js';

/** What the assistant is doing, as the user would describe it; `ringing`: a timer or an alarm goes off. */
export type AssistantState = 'listening' | 'thinking' | 'speaking' | 'ringing';

/** What hark heard the user say in one utterance, with the moments latency is measured from. */
export interface Transcript {
  utteranceId: number;
  text: string;
  /** Transcription requests made (more than one for speech longer than 30 s). */
  parts: number;
  audioMs: number;
  /** When the last voiced frame was captured: the listener's best guess at the end of speech (monotonic ms). */
  speechEndedAt: number;
  /** When the listener decided the user had stopped (the end of speech plus the silence it waited for). */
  endpointedAt: number;
  /** When the last transcription request was handed to the client. */
  transcriptionRequestAt: number;
  transcriptAt: number;
  /** hark was speaking while it was said: it may be hark's own voice. */
  overlapped: boolean;
  /** A guess at a pause: the user may not have finished. */
  tentative: boolean;
  /** Guesses transcribed for this utterance and dropped because the user went on: wasted requests. */
  droppedGuesses: number;
}

/**
 * What the user asked hark: a transcript the gate let through, with any wake phrase taken off
 * and the words of a query cut off before hark answered put in front.
 */
export interface Query {
  text: string;
  transcript: Transcript;
  /** The recording, as a WAV data URL, for a model that is given the audio (its text comes later). */
  audio?: string;
}

/**
 * What cut a turn short: the user talking over it, their next query, a stop phrase, hark
 * stopping, (for a turn held on a guess) the user going on after the pause it guessed from, or
 * a control outside the conversation (the status page's stop button).
 */
export type Interruption = 'speech' | 'query' | 'stop' | 'shutdown' | 'retracted' | 'control';

/** The gate's decision about a transcript. */
export type Verdict =
  | { type: 'query'; query: Query }
  /** The wake word (or phrase) alone: hark acknowledges it and listens for the question. */
  /** A wake word (heard on the device: its score, and the stream time it was heard at) or a wake phrase alone. */
  | { type: 'wake'; phrase: string; score?: number; atMs?: number }
  /** "stop" while hark spoke, or just after the user talked over it: nothing more to do. */
  | { type: 'stop'; transcript: Transcript }
  | { type: 'ignored'; reason: string; transcript: Transcript };

/** Monotonic times (ms) of each step of a turn. */
export interface TurnTimings {
  speechEnd: number;
  endpointed: number;
  transcriptionRequest: number;
  transcript: number;
  chatRequest?: number;
  firstToken?: number;
  firstSentence?: number;
  ttsRequest?: number;
  firstAudioByte?: number;
  firstWrite?: number;
  firstPlayed?: number;
}

/** One exchange: a query and hark's reply to it, from the chat request to the last sample played or the cut. */
export interface Turn {
  query: Query;
  /** Everything the reply would have said. */
  reply: string;
  /** What the user heard of it. */
  heard: string;
  interrupted: Interruption | false;
  failed: Error | undefined;
  usage: TokenUsage | undefined;
  timings: TurnTimings;
  sentences: number;
  /** When playback was stopped, for a turn cut short (monotonic ms). */
  stoppedAt: number | undefined;
  /** When the turn was over (monotonic ms). */
  endedAt: number;
  /** Audio of this turn handed to the player, and how much of it was played. */
  audioMs: { written: number; played: number };
  /** Requests made for guesses at pauses that the user then spoke past: wasted. */
  extraRequests: { transcriptions: number; replies: number };
  /** Tools the model called in this turn, each with what it returned (or why it failed). */
  tools: ToolExchange[];
}

/**
 * Milliseconds from the end of speech (the last voiced frame) to each step, rounded; steps that
 * did not happen are left out. The user's wait starts at their last syllable, not when hark
 * decided they had finished: `endpointing` is that difference.
 */
export function turnLatencies(turn: Turn): Record<string, number> {
  const { timings } = turn;
  const steps: [string, number | undefined][] = [
    ['endpointing', timings.endpointed],
    ['transcript', timings.transcript],
    ['firstToken', timings.firstToken],
    ['firstSentence', timings.firstSentence],
    ['firstAudioByte', timings.firstAudioByte],
    ['firstSamplePlayed', timings.firstPlayed],
  ];
  const latencies: Record<string, number> = {};
  for (const [step, at] of steps) if (at !== undefined) latencies[step] = Math.round(at - timings.speechEnd);
  return latencies;
}
