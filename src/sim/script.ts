import type { Endpoint } from '../contract/endpoints.js';

/** One scripted reply of the chat models (either endpoint). */
export interface ReplyScript {
  text?: string;
  /** Streamed as `reasoning_content` / a thinking block before the text, unless thinking is disabled. */
  reasoning?: string;
  /** Called only when the request offers a tool by this name. */
  toolCall?: { name: string; arguments: Record<string, unknown> };
  ttftMs?: number;
  tokensPerSecond?: number;
}

/** Misbehaviour injected into one request. */
export interface Fault {
  /** Which endpoint's next request it hits; any endpoint when omitted. */
  endpoint?: Endpoint;
  /** Answer with this HTTP error status (and an error body in the endpoint's style). */
  status?: number;
  retryAfterS?: number;
  message?: string;
  /** Wait this long before answering at all. */
  delayMs?: number;
  /** Stream this many events, then destroy the connection. */
  dropAfterEvents?: number;
  /** Stream this many events, then send one frame whose data is not JSON. */
  malformedAfterEvents?: number;
  /** Messages-style: stream this many events, then an `error` event (after HTTP 200). */
  errorEventAfterEvents?: number;
  /** Write the body in pieces of this many bytes... */
  dripBytes?: number;
  /** ...this many milliseconds apart. */
  dripIntervalMs?: number;
  /** Messages-style: sprinkle `ping` events and an unknown event and block type through the stream. */
  noise?: boolean;
}

/** Queues consumed in order: replies, transcripts and faults. */
export class SimScript {
  readonly replies: ReplyScript[] = [];
  readonly transcripts: string[] = [];
  readonly faults: Fault[] = [];

  reply(...replies: (ReplyScript | string)[]): this {
    this.replies.push(...replies.map((r) => (typeof r === 'string' ? { text: r } : r)));
    return this;
  }

  transcript(...texts: string[]): this {
    this.transcripts.push(...texts);
    return this;
  }

  fault(...faults: Fault[]): this {
    this.faults.push(...faults);
    return this;
  }

  clear(): void {
    this.replies.length = 0;
    this.transcripts.length = 0;
    this.faults.length = 0;
  }

  takeReply(): ReplyScript | undefined {
    return this.replies.shift();
  }

  takeTranscript(): string | undefined {
    return this.transcripts.shift();
  }

  takeFault(endpoint: Endpoint): Fault | undefined {
    const index = this.faults.findIndex((f) => f.endpoint === undefined || f.endpoint === endpoint);
    return index === -1 ? undefined : this.faults.splice(index, 1)[0];
  }
}

const CJK = '\\u3000-\\u303f\\u3400-\\u4dbf\\u4e00-\\u9fff\\uff00-\\uffef';
const TOKEN = new RegExp(`\\s*[${CJK}]|\\s*[^\\s${CJK}]{1,12}|\\s+$`, 'gu');

/** Splits text into model-like tokens: words with their leading space, CJK characters one by one. */
export function tokenize(text: string): string[] {
  return text.match(TOKEN) ?? [];
}

/** The reply when nothing is scripted: deterministic, and it says what it heard. */
export function defaultReply(lastUserText: string): string {
  const heard = lastUserText.trim().replace(/\s+/g, ' ').slice(0, 200);
  if (!heard) return 'I did not catch that. Could you say it again?';
  const sentence = /[.!?。！？)]$/u.test(heard) ? heard : `${heard}.`;
  return `You said: ${sentence} This is the stand-in service answering. It speaks in short sentences, so you can hear each one start quickly. Ask me something else whenever you like.`;
}

/** Rough token count for usage objects: about four characters per token. */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
