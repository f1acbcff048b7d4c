import { compactExchange, type ToolExchange } from './tool-calls.js';
import type { Turn, Verdict } from './turn.js';

/** One message of the conversation as hark keeps it: plain text, as the user said it and as the user heard hark. */
export interface Message {
  role: 'user' | 'assistant';
  text: string;
  /** What the user said, as a WAV data URL, when the model is given the recording itself. */
  audio?: string;
  /** An assistant message that called tools: the calls, each with what it returned (sent after it). */
  tools?: ToolExchange[];
}

/** How an interrupted reply is marked in the history, so the model knows it was cut. */
export const INTERRUPTED_MARK = ' [interrupted by the user]';

export interface ConversationPolicy {
  /** Exchanges (a query and its reply) kept as context. */
  maxTurns: number;
  maxChars: number;
  /** After a reply or a lone wake phrase, how long a follow-up needs no wake phrase. */
  followUpMs: number;
}

/** What the dialog remembers between turns. Pure data, changed only by the folds below. */
export interface Conversation {
  /** The context of the next reply: bounded, oldest dropped first, holding only what the user heard. */
  messages: readonly Message[];
  /** The words of a query cut off before hark said anything: they open the next query. */
  carried: string;
  /** Until when (monotonic ms) a query needs no wake phrase. */
  followUpUntil: number;
  /** When the user last talked over hark (monotonic ms). */
  interruptedAt: number;
  /** The sentences of the latest reply hark spoke, so its own voice heard back can be told apart. */
  said: readonly string[];
}

export function newConversation(): Conversation {
  return { messages: [], carried: '', followUpUntil: -Infinity, interruptedAt: -Infinity, said: [] };
}

/** The query as the model gets it: carried words first. */
export function queryText(conversation: Conversation, text: string): string {
  return conversation.carried ? `${conversation.carried} ${text}` : text;
}

/** The messages of the next chat request: the history, then the query (with its recording, for a model that hears). */
export function messagesFor(conversation: Conversation, text: string, audio?: string): Message[] {
  return [...conversation.messages, { role: 'user', text, ...(audio ? { audio } : {}) }];
}

/**
 * A finished turn folded in. A reply heard to the end opens the follow-up window; a cut one
 * keeps only what was heard, marked; a query cut before hark said a word is carried into the
 * next one (unless a stop phrase or the stop button cut it); a failure that said nothing leaves no trace.
 */
export function afterTurn(conversation: Conversation, turn: Turn, policy: ConversationPolicy): Conversation {
  const next: Conversation = { ...conversation, carried: '' };
  if (turn.interrupted) next.interruptedAt = turn.endedAt;
  if (!turn.interrupted && !turn.failed) next.followUpUntil = turn.endedAt + policy.followUpMs;
  // Tools that ran did something (a timer set): the turn happened, even if nothing was heard.
  const acted = turn.tools.length > 0;
  if (turn.interrupted && !turn.heard && !acted)
    return turn.interrupted === 'stop' || turn.interrupted === 'control' ? next : { ...next, carried: turn.query.text };
  if (!turn.heard && turn.failed && !acted) return next;
  const cut = turn.interrupted || turn.failed !== undefined;
  const reply = cut ? `${turn.heard.trimEnd()}${INTERRUPTED_MARK}`.trimStart() : turn.reply;
  const messages: Message[] = [
    ...conversation.messages,
    { role: 'user', text: turn.query.text },
    ...(acted ? [{ role: 'assistant' as const, text: '', tools: turn.tools.map(compactExchange) }] : []),
    { role: 'assistant', text: reply },
  ];
  return { ...next, messages: bounded(messages, policy) };
}

/** hark began to speak a sentence; the first of a reply starts the list afresh. */
export function afterSaying(conversation: Conversation, sentence: { index: number; text: string }): Conversation {
  const said = sentence.index === 0 ? [sentence.text] : [...conversation.said, sentence.text];
  return { ...conversation, said };
}

/** What the gate decided, folded in: a lone wake phrase opens the window; "stop" ends the matter. */
export function afterVerdict(
  conversation: Conversation,
  verdict: Verdict,
  now: number,
  policy: ConversationPolicy,
): Conversation {
  if (verdict.type === 'wake') return { ...conversation, followUpUntil: now + policy.followUpMs };
  if (verdict.type === 'stop') return { ...conversation, carried: '', interruptedAt: -Infinity };
  return conversation;
}

/** How a question hark asked for the home appears in the history: an exchange the home began. */
export const ASKED_FOR_THE_HOME = '(The home automation asks you to put this question to the user.)';

/**
 * Something the home asked hark to say (an announcement, or a question), as it starts and as
 * it ends. Its words are hark's own voice while it sounds. A question opens the window at once
 * (the user may answer before it ends), and once said joins the history, as an exchange the home
 * began, so the model knows what the answer answers; the answer needs no wake word until
 * `followUpMs` after the question ended. One cut by hark stopping, or that could not be said,
 * leaves no trace.
 */
export function afterNotice(
  conversation: Conversation,
  notice: { kind: 'announce' | 'ask'; text: string; phase: 'started' | 'said' | 'unsaid' },
  now: number,
  policy: ConversationPolicy,
): Conversation {
  if (notice.phase === 'started') {
    const followUpUntil = notice.kind === 'ask' ? Infinity : conversation.followUpUntil;
    return { ...conversation, said: [notice.text], followUpUntil };
  }
  if (notice.kind !== 'ask') return conversation;
  if (notice.phase === 'unsaid') return { ...conversation, followUpUntil: now };
  const messages: Message[] = [
    ...conversation.messages,
    { role: 'user', text: ASKED_FOR_THE_HOME },
    { role: 'assistant', text: notice.text },
  ];
  return { ...conversation, carried: '', messages: bounded(messages, policy), followUpUntil: now + policy.followUpMs };
}

/** Oldest exchanges (a user message and what follows it) dropped first, past either limit. */
function bounded(messages: Message[], policy: ConversationPolicy): Message[] {
  const starts = messages.flatMap((m, i) => (m.role === 'user' ? [i] : []));
  let chars = messages.reduce((sum, m) => sum + charsOf(m), 0);
  let dropped = 0;
  while (dropped < starts.length && (starts.length - dropped > policy.maxTurns || chars > policy.maxChars)) {
    const end = starts[dropped + 1] ?? messages.length;
    for (let i = starts[dropped] ?? 0; i < end; i++) chars -= charsOf(messages[i] as Message);
    dropped++;
  }
  return messages.slice(dropped < starts.length ? starts[dropped] : messages.length);
}

function charsOf(message: Message): number {
  return message.text.length + (message.tools ?? []).reduce((sum, t) => sum + t.arguments.length + t.result.length, 0);
}
