import type { ServiceEndpoint } from '../contract/endpoints.js';

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
  endpoint?: ServiceEndpoint;
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

/**
 * What one utterance transcribes to. A client that guesses at a pause sends the same utterance
 * more than once, each time longer: the first request gets the first text, later ones the next
 * (the last repeats), e.g. `{ texts: ['Add eggs and', 'Add eggs and milk.'] }`.
 */
export interface TranscriptScript {
  texts: string[];
}

/** Queues consumed in order: replies, transcripts (one per utterance) and faults. */
export class SimScript {
  readonly replies: ReplyScript[] = [];
  readonly transcripts: TranscriptScript[] = [];
  /** The utterance transcribed last: its audio, and how many requests it has had. */
  private current: { pcm: Int16Array; script: TranscriptScript; served: number } | undefined;
  readonly faults: Fault[] = [];

  reply(...replies: (ReplyScript | string)[]): this {
    this.replies.push(...replies.map((r) => (typeof r === 'string' ? { text: r } : r)));
    return this;
  }

  transcript(...texts: (string | TranscriptScript)[]): this {
    this.transcripts.push(...texts.map((t) => (typeof t === 'string' ? { texts: [t] } : t)));
    return this;
  }

  fault(...faults: Fault[]): this {
    this.faults.push(...faults);
    return this;
  }

  clear(): void {
    this.replies.length = 0;
    this.transcripts.length = 0;
    this.current = undefined;
    this.faults.length = 0;
  }

  takeReply(): ReplyScript | undefined {
    return this.replies.shift();
  }

  /**
   * The text for a request with this audio: the same utterance again (longer, and starting with
   * the audio of the last request) gets its next text; any other takes the next script.
   */
  takeTranscript(pcm?: Int16Array): string | undefined {
    const current = this.current;
    if (pcm && current && pcm.length > current.pcm.length && startsWith(pcm, current.pcm)) {
      current.pcm = pcm;
      current.served++;
      return current.script.texts[Math.min(current.served, current.script.texts.length - 1)];
    }
    const script = this.transcripts.shift();
    this.current = script && pcm ? { pcm, script, served: 0 } : undefined;
    return script?.texts[0];
  }

  takeFault(endpoint: ServiceEndpoint): Fault | undefined {
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

function startsWith(longer: Int16Array, prefix: Int16Array): boolean {
  for (let i = 0; i < prefix.length; i++) if (longer[i] !== prefix[i]) return false;
  return true;
}
