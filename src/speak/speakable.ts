/**
 * Streaming filter from a model's reply to what may be read aloud: markdown (headings,
 * emphasis, lists, quotes, code, tables, links, images) becomes its text; emoji, raw URLs
 * and HTML tags disappear. Text is held back only while a construct is undecided (an open
 * `[`, a URL still arriving, the start of a line), so speech is not delayed for long.
 */

const URL_PATTERN = /(?:https?:\/\/|www\.)[^\s<>()[\]]*[^\s<>()[\].,;:!?'"]/giu;
const EMOJI =
  /(?:\p{Extended_Pictographic}|\p{Regional_Indicator})(?:\u{FE0F}|\u{200D}(?:\p{Extended_Pictographic})|[\u{1F3FB}-\u{1F3FF}])*|\u{FE0F}|\u{200D}|\u{20E3}/gu;
const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
  '&nbsp;': ' ',
};

/** A line start that might still turn into a block marker (`#`, `-`, `1.`, `>`, `|`, a fence). */
const UNDECIDED_LINE_START = /^[ \t]*(?:#{0,6}|[-*+]|\d{1,3}[.)]?|>|\||`{1,3}|~{1,3})$/;
const FENCE = /^[ \t]*(?:```|~~~)/;
const HEADING = /^[ \t]*#{1,6}[ \t]+/;
const LIST_ITEM = /^[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+/;
const QUOTE = /^[ \t]*>[ \t]?/;
const TABLE_ROW = /^[ \t]*\|/;
const RULE = /^[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const TABLE_SEPARATOR = /^[ \t]*\|?[ \t]*:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*\|?[ \t]*$/;

type LineKind = 'text' | 'heading' | 'list' | 'quote' | 'table' | 'fence' | 'code';

export class SpeakableFilter {
  private pending = '';
  private atLineStart = true;
  private lineKind: LineKind = 'text';
  private inCodeBlock = false;
  private lineHadText = false;
  /** The last visible characters of the current line, to see if it already ends a sentence. */
  private lineTail = '';
  private lastEmitted = '';
  /** A space not yet emitted: dropped if punctuation comes next, so "word ." never happens. */
  private spaceOwed = false;

  push(chunk: string): string {
    this.pending += chunk;
    return this.drain(false);
  }

  flush(): string {
    const out = this.drain(true);
    this.pending = '';
    this.spaceOwed = false;
    return out;
  }

  private drain(final: boolean): string {
    let out = '';
    for (;;) {
      if (this.atLineStart && !this.decideLineStart(final)) break;
      const newline = this.pending.indexOf('\n');
      if (newline === -1) {
        if (this.lineKind === 'table' || this.lineKind === 'fence') {
          if (!final) break;
          out += this.finishLine(this.pending);
          this.pending = '';
          break;
        }
        const safe = final ? this.pending.length : safeInlineEnd(this.pending);
        out += this.inline(this.pending.slice(0, safe));
        this.pending = this.pending.slice(safe);
        if (final && this.pending === '') out += this.endOfLine();
        break;
      }
      out += this.finishLine(this.pending.slice(0, newline));
      this.pending = this.pending.slice(newline + 1);
    }
    return this.tidy(out);
  }

  /** Decides what kind of line this is; false when more text is needed first. */
  private decideLineStart(final: boolean): boolean {
    const newline = this.pending.indexOf('\n');
    const head = newline === -1 ? this.pending : this.pending.slice(0, newline);
    if (newline === -1 && !final && UNDECIDED_LINE_START.test(head)) return false;
    this.atLineStart = false;
    this.lineHadText = false;
    if (FENCE.test(head)) {
      this.lineKind = 'fence';
      return true;
    }
    if (this.inCodeBlock) {
      this.lineKind = 'code';
      return true;
    }
    if (TABLE_ROW.test(head)) {
      this.lineKind = 'table';
      return true;
    }
    const marker = HEADING.exec(head) ?? LIST_ITEM.exec(head) ?? QUOTE.exec(head);
    this.lineKind = HEADING.test(head)
      ? 'heading'
      : LIST_ITEM.test(head)
        ? 'list'
        : QUOTE.test(head)
          ? 'quote'
          : 'text';
    if (marker) this.pending = this.pending.slice(marker[0].length);
    if (RULE.test(head) && newline !== -1) this.pending = this.pending.slice(head.length);
    return true;
  }

  /** The rest of a line whose newline has arrived. */
  private finishLine(rest: string): string {
    let out = '';
    if (this.lineKind === 'fence') {
      this.inCodeBlock = !this.inCodeBlock;
    } else if (this.lineKind === 'table') {
      if (!TABLE_SEPARATOR.test(rest)) {
        const cells = rest
          .split('|')
          .map((c) => this.inline(c).trim())
          .filter(Boolean);
        if (cells.length) out = this.sentence(cells.join(', '));
      }
    } else if (!RULE.test(rest) || this.lineKind === 'code') {
      out = this.inline(rest);
    }
    out += this.endOfLine();
    this.atLineStart = true;
    this.lineKind = 'text';
    return out;
  }

  /** A line break is a pause: headings, list items and the like end as sentences. */
  private endOfLine(): string {
    const needsStop = this.lineKind !== 'text' && this.lineKind !== 'code' && this.lineHadText;
    const stop = needsStop && !/[.!?。！？:;,，；：]$/u.test(this.lineTail) ? '.' : '';
    this.lineHadText = false;
    this.lineTail = '';
    return `${stop} `;
  }

  private sentence(text: string): string {
    this.lineHadText = false;
    return /[.!?。！？]$/u.test(text) ? text : `${text}.`;
  }

  private inline(text: string): string {
    if (text === '') return '';
    let out = text
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<(?:https?:\/\/|mailto:)[^>]*>/gi, '')
      .replace(/<\/?[A-Za-z][^<>]*>/g, ' ')
      .replace(URL_PATTERN, '')
      .replace(EMOJI, '')
      .replace(/&(?:amp|lt|gt|quot|#39|nbsp);/g, (e) => ENTITIES[e] ?? e);
    if (this.lineKind !== 'code') {
      out = out
        .replace(/`+/g, '')
        .replace(/\*+|~~/g, '')
        .replace(/(^|[\s(])_+|_+(?=[\s).,;:!?]|$)/g, '$1');
    }
    if (/\S/.test(out)) {
      this.lineHadText = true;
      this.lineTail = out.trimEnd().slice(-2);
    }
    return out;
  }

  /** Collapses whitespace, also across chunk boundaries, and never puts a space before punctuation. */
  private tidy(text: string): string {
    let out = text.replace(/[ \t\r]+/g, ' ').replace(/ +([.,!?;:])/g, '$1');
    if (out === '') return '';
    const leadingSpace = out.startsWith(' ');
    out = out.trim();
    if (out === '') {
      this.spaceOwed ||= this.lastEmitted !== '';
      return '';
    }
    const space = (this.spaceOwed || leadingSpace) && this.lastEmitted !== '' && !/^[.,!?;:]/.test(out) ? ' ' : '';
    this.spaceOwed = /\s$/.test(text);
    out = space + out;
    this.lastEmitted = out.slice(-4);
    return out;
  }
}

/**
 * How much of a line's text can be filtered now: everything before an unfinished link or
 * image, a URL that may still be arriving, or a marker character that the next chunk could
 * turn into something else.
 */
function safeInlineEnd(text: string): number {
  let end = text.length;
  const open = text.lastIndexOf('[');
  if (open !== -1 && !/\]\([^)]*\)/.test(text.slice(open)) && !/\][^(]/.test(text.slice(open))) {
    end = open > 0 && text[open - 1] === '!' ? open - 1 : open;
  }
  const lastSpace = Math.max(text.lastIndexOf(' '), text.lastIndexOf('\t'));
  const lastWord = text.slice(lastSpace + 1);
  if (/^(?:h(?:t(?:t(?:p(?:s)?)?)?)?|w(?:w(?:w)?)?|<)$/i.test(lastWord) || /^(?:https?:|www\.|<)/i.test(lastWord)) {
    end = Math.min(end, lastSpace + 1);
  }
  const tag = text.lastIndexOf('<');
  if (tag > text.lastIndexOf('>') && tag !== -1) end = Math.min(end, tag);
  while (end > 0 && /[*_~`&\uD800-\uDBFF]|\u200D|\uFE0F/.test(text[end - 1] ?? '')) end--;
  const entity = text.lastIndexOf('&');
  if (entity !== -1 && entity >= end - 6 && !text.slice(entity).includes(';')) end = Math.min(end, entity);
  return end;
}
