import { LIMITS, charCount } from '../contract/limits.js';

/** Pushed alone, ends the sentence under way: the model paused (to call a tool), so what it said is let out. */
export const SENTENCE_BREAK = '\u2029';

/** A sentence of a reply, numbered from 0 in the order it is spoken. */
export interface Sentence {
  index: number;
  text: string;
}

export interface SplitterOptions {
  /** Longest chunk, in characters; the speech endpoint takes at most 2048. */
  maxChars?: number;
  /** Sentences shorter than this wait to be merged with the next one. */
  minChars?: number;
  /** The first chunk may be a clause ending in `,` `;` `:` once it is at least this long. */
  firstClauseMinChars?: number;
  locale?: string;
}

/** Words after which a full stop does not end the sentence (titles, not "etc."). */
const ABBREVIATIONS = new Set([
  'mr',
  'mrs',
  'ms',
  'dr',
  'prof',
  'sr',
  'jr',
  'st',
  'mt',
  'gen',
  'col',
  'capt',
  'lt',
  'sgt',
  'rev',
  'hon',
  'vs',
  'no',
  'fig',
  'approx',
  'dept',
  'est',
  'vol',
  'ch',
  'sec',
  'op',
  'cf',
  'al',
]);
const CLAUSE_END = /[,;:，、；：]\s|[—–]\s?/gu;
const CJK_CLAUSE_END = /[，、；：]/gu;

/** ICU's sentence rules take milliseconds to build: once per locale, not once per reply. */
const segmenters = new Map<string, Intl.Segmenter>();
function sentenceSegmenter(locale: string): Intl.Segmenter {
  let segmenter = segmenters.get(locale);
  if (!segmenter) {
    segmenter = new Intl.Segmenter(locale, { granularity: 'sentence' });
    segmenters.set(locale, segmenter);
  }
  return segmenter;
}

/**
 * Streaming sentence splitter for speech: text arrives in fragments, chunks leave as soon
 * as they are known to be complete. Built on Intl.Segmenter (so 。！？ end Chinese
 * sentences), with the cases ICU gets wrong for speech put right: titles and initials
 * ("Dr. Smith", "J. Smith") do not end a sentence, tiny fragments are merged, the first
 * chunk may be a clause so speech can start sooner, and no chunk exceeds `maxChars`.
 */
export class SentenceSplitter {
  private readonly segmenter: Intl.Segmenter;
  private readonly maxChars: number;
  private readonly minChars: number;
  private readonly firstClauseMinChars: number;
  private buffer = '';
  private emittedAny = false;

  constructor(options: SplitterOptions = {}) {
    this.segmenter = sentenceSegmenter(options.locale ?? 'en');
    this.maxChars = options.maxChars ?? LIMITS.speech.inputMaxChars;
    this.minChars = options.minChars ?? 12;
    this.firstClauseMinChars = options.firstClauseMinChars ?? 16;
  }

  push(text: string): string[] {
    this.buffer += text;
    return this.take(false);
  }

  /** The reply is complete: whatever is left is the last chunk. */
  flush(): string[] {
    return this.take(true);
  }

  private take(final: boolean): string[] {
    const out: string[] = [];
    const sentences = this.completeSentences(final);
    let carry = '';
    let consumed = 0;
    for (const sentence of sentences) {
      carry += sentence;
      consumed += sentence.length;
      if (spokenWeight(carry.trim()) >= this.minChars) {
        out.push(...this.limit(carry));
        carry = '';
        this.buffer = this.buffer.slice(consumed);
        consumed = 0;
      }
    }
    if (final && carry.trim()) {
      out.push(...this.limit(carry));
      this.buffer = '';
    } else if (!this.emittedAny && out.length === 0) {
      const clause = this.firstClause();
      if (clause) out.push(clause);
    }
    if (!final && charCount(this.buffer) > this.maxChars) out.push(...this.cutOverlong());
    const chunks = out.map((c) => c.trim()).filter((c) => c.length > 0);
    if (chunks.length) this.emittedAny = true;
    return chunks;
  }

  /** Complete sentences at the front of the buffer (merged where ICU broke too early). */
  private completeSentences(final: boolean): string[] {
    const segments = [...this.segmenter.segment(this.buffer)].map((s) => s.segment);
    const merged: string[] = [];
    for (const segment of segments) {
      const previous = merged.at(-1);
      if (previous !== undefined && (endsWithAbbreviation(previous) || /^\s*[a-z0-9]/.test(segment))) {
        merged[merged.length - 1] = previous + segment;
      } else {
        merged.push(segment);
      }
    }
    if (final) return merged;
    // The last segment may still be growing, and one ending in a title waits for its name.
    merged.pop();
    while (merged.length && endsWithAbbreviation(merged.at(-1) as string)) merged.pop();
    return merged;
  }

  /** Before any sentence is complete: the first clause, once it is long enough and followed by more. */
  private firstClause(): string | undefined {
    for (const pattern of [CLAUSE_END, CJK_CLAUSE_END]) {
      pattern.lastIndex = 0;
      for (let match = pattern.exec(this.buffer); match; match = pattern.exec(this.buffer)) {
        const end = match.index + match[0].length;
        if (spokenWeight(this.buffer.slice(0, end).trim()) < this.firstClauseMinChars || end >= this.buffer.length)
          continue;
        if (/\d/.test(this.buffer[match.index - 1] ?? '') && /\d/.test(this.buffer[end] ?? '')) continue;
        const clause = this.buffer.slice(0, end);
        this.buffer = this.buffer.slice(end);
        return clause;
      }
    }
    return undefined;
  }

  /** A sentence still without an end past `maxChars`: send what fits, cut at a clause or a word. */
  private cutOverlong(): string[] {
    const head = cutPoint(this.buffer, this.maxChars);
    const chunk = this.buffer.slice(0, head);
    this.buffer = this.buffer.slice(head);
    return [chunk];
  }

  private limit(text: string): string[] {
    const chunks: string[] = [];
    let rest = text;
    while (charCount(rest.trim()) > this.maxChars) {
      const head = cutPoint(rest, this.maxChars);
      chunks.push(rest.slice(0, head));
      rest = rest.slice(head);
    }
    chunks.push(rest);
    return chunks;
  }
}

/** Length as heard: a Chinese character says about as much as three Latin letters. */
function spokenWeight(text: string): number {
  let weight = 0;
  for (const ch of text) weight += /[\u3400-\u9fff]/u.test(ch) ? 3 : 1;
  return weight;
}

function endsWithAbbreviation(segment: string): boolean {
  const match = /(?:^|[\s(])([A-Za-z]{1,6})\.\s*$/.exec(segment);
  if (!match) return false;
  const word = match[1] as string;
  return ABBREVIATIONS.has(word.toLowerCase()) || /^[A-Z]$/.test(word);
}

/** Where to cut text longer than `maxChars`: after the last clause mark, else the last space, else hard. */
function cutPoint(text: string, maxChars: number): number {
  const codePoints = [...text];
  const window = codePoints.slice(0, maxChars).join('');
  const clause = Math.max(...[...window.matchAll(/[,;:，、；：—–]\s*/gu)].map((m) => (m.index ?? 0) + m[0].length), -1);
  if (clause > window.length / 2) return clause;
  const space = window.lastIndexOf(' ');
  if (space > window.length / 2) return space + 1;
  return window.length;
}
