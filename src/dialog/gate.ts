import { isStopPhrase, matchWakePhrase } from '../listen/wake-phrase.js';
import type { Conversation } from './conversation.js';
import { soundsLikeOwnVoice } from './own-voice.js';
import type { AssistantState, Transcript, Verdict } from './turn.js';

export interface GatePolicy {
  wakePhrases: readonly string[];
  stopPhrases: readonly string[];
  /** How long after a barge-in a lone "stop" still counts as stopping that reply. */
  stopAfterInterruptionMs: number;
}

/**
 * Which transcripts become queries. With wake phrases configured, a query must start with one
 * (taken off before the chat request), except in the follow-up window. A stop phrase said while
 * hark is busy, or just after the user talked over it, stops hark without a new query. Speech
 * heard while hark spoke that repeats what hark said is its own voice, never a query; nor is
 * speech over hark's reply that was judged no interruption (`dismissed`: the reply paused for
 * it and played on), whatever its words: a cough, a word too short to interrupt, or hark's own
 * voice that the echo canceller let through and transcription made words of. Pure.
 */
export function admit(
  transcript: Transcript,
  state: AssistantState,
  conversation: Conversation,
  now: number,
  policy: GatePolicy,
  dismissed = false,
): Verdict {
  const busy = state !== 'listening' || now - conversation.interruptedAt < policy.stopAfterInterruptionMs;
  if (busy && isStopPhrase(transcript.text, policy.stopPhrases)) return { type: 'stop', transcript };
  if (transcript.overlapped && soundsLikeOwnVoice(transcript.text, conversation.said)) {
    return { type: 'ignored', reason: 'own voice', transcript };
  }
  if (dismissed) return { type: 'ignored', reason: 'not an interruption', transcript };
  if (policy.wakePhrases.length === 0) return { type: 'query', query: { text: transcript.text, transcript } };
  const match = matchWakePhrase(transcript.text, policy.wakePhrases);
  if (match && !/[\p{L}\p{N}]/u.test(match.rest)) return { type: 'wake', phrase: match.phrase };
  if (match) return { type: 'query', query: { text: match.rest, transcript } };
  if (now < conversation.followUpUntil) return { type: 'query', query: { text: transcript.text, transcript } };
  return { type: 'ignored', reason: 'no wake phrase', transcript };
}
