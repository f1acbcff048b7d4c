/**
 * Incremental Server-Sent Events decoder working on raw bytes, so that input split at any
 * byte (inside a UTF-8 sequence, between CR and LF, inside a field name) decodes the same.
 * Follows the WHATWG event-stream rules, and at end of input also dispatches a last event
 * that lacks its closing blank line.
 */
export interface SseEvent {
  /** `message` when the stream names no event type. */
  event: string;
  data: string;
  id: string | undefined;
}

const LF = 0x0a;
const CR = 0x0d;

export class SseDecoder {
  private pending: Buffer | undefined;
  private skipLeadingLf = false;
  private firstLine = true;
  private data = '';
  private hasData = false;
  private eventType = '';
  private lastId: string | undefined;

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  push(chunk: Uint8Array): void {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const length = buf.length;
    if (length === 0) return;
    let start = 0;
    if (this.skipLeadingLf) {
      this.skipLeadingLf = false;
      if (buf[0] === LF) start = 1;
    }
    let nextLf = buf.indexOf(LF, start);
    let nextCr = buf.indexOf(CR, start);
    while (start < length) {
      if (nextLf !== -1 && nextLf < start) nextLf = buf.indexOf(LF, start);
      if (nextCr !== -1 && nextCr < start) nextCr = buf.indexOf(CR, start);
      const end = nextCr === -1 ? nextLf : nextLf === -1 ? nextCr : Math.min(nextLf, nextCr);
      if (end === -1) {
        const rest = buf.subarray(start);
        this.pending = this.pending ? Buffer.concat([this.pending, rest]) : Buffer.from(rest);
        return;
      }
      this.takeLine(buf, start, end);
      if (buf[end] === CR) {
        if (end + 1 === length) this.skipLeadingLf = true;
        start = end + 1 < length && buf[end + 1] === LF ? end + 2 : end + 1;
      } else {
        start = end + 1;
      }
    }
  }

  /** Input is over: a last unterminated line and a last event without its blank line still count. */
  end(): void {
    if (this.pending) {
      const line = this.pending;
      this.pending = undefined;
      this.processLine(line.toString('utf8'));
    }
    this.dispatch();
  }

  private takeLine(buf: Buffer, start: number, end: number): void {
    if (this.pending) {
      const line = Buffer.concat([this.pending, buf.subarray(start, end)]);
      this.pending = undefined;
      this.processLine(line.toString('utf8'));
    } else {
      this.processLine(buf.toString('utf8', start, end));
    }
  }

  private processLine(rawLine: string): void {
    let line = rawLine;
    if (this.firstLine) {
      this.firstLine = false;
      if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    }
    if (line.length === 0) {
      this.dispatch();
      return;
    }
    const colon = line.indexOf(':');
    if (colon === 0) return;
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data = this.hasData ? `${this.data}\n${value}` : value;
        this.hasData = true;
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      default:
        break;
    }
  }

  private dispatch(): void {
    if (!this.hasData) {
      this.eventType = '';
      return;
    }
    const event: SseEvent = { event: this.eventType || 'message', data: this.data, id: this.lastId };
    this.data = '';
    this.hasData = false;
    this.eventType = '';
    this.onEvent(event);
  }
}

/** Decodes a byte stream into SSE events as they complete. */
export async function* decodeSse(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<SseEvent> {
  const ready: SseEvent[] = [];
  const decoder = new SseDecoder((event) => ready.push(event));
  for await (const chunk of chunks) {
    decoder.push(chunk);
    for (let i = 0; i < ready.length; i++) yield ready[i] as SseEvent;
    ready.length = 0;
  }
  decoder.end();
  yield* ready;
}
