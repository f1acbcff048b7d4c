import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServiceEndpoint } from '../contract/endpoints.js';
import type { Fault } from './script.js';

export type Outcome = 'pending' | 'completed' | 'client-closed' | 'dropped';

/** What the stand-in saw of one request: for tests to assert on. */
export interface SimRequest {
  seq: number;
  endpoint: ServiceEndpoint | 'unknown';
  path: string;
  /** Request headers, with the key masked. */
  headers: Record<string, string>;
  /** The parsed JSON body, or for transcription the form fields and the file's size and duration. */
  body: unknown;
  status: number;
  receivedAtMs: number;
  /** When the first byte of the response body was handed to the socket (process.hrtime, ms). */
  firstBodyByteAtMs: number | undefined;
  /** SSE events written. */
  events: number;
  outcome: Outcome;
  /** Settles when the exchange is over, however it ended. */
  ended: Promise<Outcome>;
}

export type ErrorStyle = 'openai' | 'anthropic';

/** The system-wide monotonic clock in ms: comparable between processes on one machine. */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** One request/response pair, with the injected fault and the bookkeeping tests read. */
export class Exchange {
  readonly abort = new AbortController();
  private resolveEnded!: (outcome: Outcome) => void;

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    readonly record: SimRequest,
    readonly fault: Fault | undefined,
    readonly errorStyle: ErrorStyle,
  ) {
    record.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    res.on('close', () => {
      if (record.outcome === 'pending') record.outcome = res.writableFinished ? 'completed' : 'client-closed';
      this.abort.abort();
      this.resolveEnded(record.outcome);
    });
  }

  get closed(): boolean {
    return this.abort.signal.aborted;
  }

  async readBody(): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  sendError(
    status: number,
    type: string,
    message: string,
    param?: string,
    extraHeaders: Record<string, string> = {},
  ): void {
    const requestId = `req_sim_${this.record.seq}`;
    const body =
      this.errorStyle === 'anthropic'
        ? { type: 'error', error: { type, message }, request_id: requestId }
        : { error: { message, type, param: param ?? null, code: type } };
    this.sendJson(status, body, { 'x-request-id': requestId, ...extraHeaders });
  }

  sendJson(status: number, body: unknown, headers: Record<string, string> = {}): void {
    this.send(status, 'application/json', Buffer.from(JSON.stringify(body)), headers);
  }

  send(status: number, contentType: string, body: Buffer, headers: Record<string, string> = {}): void {
    if (this.closed) return;
    this.record.status = status;
    this.res.writeHead(status, { 'content-type': contentType, 'content-length': String(body.length), ...headers });
    this.markFirstByte();
    this.res.end(body);
  }

  /** Starts a streamed (chunked) response. */
  startStream(contentType: string): void {
    this.record.status = 200;
    this.res.writeHead(200, {
      'content-type': contentType,
      'cache-control': 'no-cache',
      'x-request-id': `req_sim_${this.record.seq}`,
    });
    this.res.flushHeaders();
  }

  /** Writes bytes, honouring backpressure and a slow-drip fault. */
  async write(bytes: string | Buffer): Promise<void> {
    if (this.closed) return;
    this.markFirstByte();
    const fault = this.fault;
    if (fault?.dripBytes && fault.dripIntervalMs !== undefined) {
      const buf = Buffer.from(bytes);
      for (let at = 0; at < buf.length && !this.closed; at += fault.dripBytes) {
        this.res.write(buf.subarray(at, at + fault.dripBytes));
        await this.sleep(fault.dripIntervalMs);
      }
      return;
    }
    if (!this.res.write(bytes))
      await new Promise<void>((resolve) => {
        const done = (): void => {
          this.res.off('drain', done);
          this.res.off('close', done);
          resolve();
        };
        this.res.on('drain', done);
        this.res.on('close', done);
      });
  }

  end(): void {
    if (!this.closed) this.res.end();
  }

  /**
   * Destroys the connection mid-stream, as a crashed or cut-off server would; after the bytes
   * already written have left (Node corks response writes until the next tick).
   */
  async drop(): Promise<void> {
    this.record.outcome = 'dropped';
    await new Promise((resolve) => setImmediate(resolve));
    this.req.socket.destroy();
  }

  /** Waits, unless the exchange is over; below a millisecond (no timer can do that) it does not wait. */
  sleep(ms: number): Promise<void> {
    if (ms < 1 || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.abort.signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.abort.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private markFirstByte(): void {
    this.record.firstBodyByteAtMs ??= monotonicMs();
  }
}

/**
 * Writes SSE frames and applies the stream faults: a dropped connection, a malformed frame
 * or an in-stream error after N events. Returns false once the stream must stop.
 */
export class SseWriter {
  constructor(
    private readonly exchange: Exchange,
    private readonly onErrorEvent?: () => string,
  ) {}

  async frame(text: string): Promise<boolean> {
    const { exchange } = this;
    const fault = exchange.fault;
    const sent = exchange.record.events;
    if (exchange.closed) return false;
    if (fault?.dropAfterEvents === sent) {
      await exchange.drop();
      return false;
    }
    if (fault?.malformedAfterEvents === sent) {
      await exchange.write('data: {"this frame is not json\n\n');
      exchange.end();
      return false;
    }
    if (fault?.errorEventAfterEvents === sent && this.onErrorEvent) {
      await exchange.write(this.onErrorEvent());
      exchange.end();
      return false;
    }
    await exchange.write(text);
    exchange.record.events++;
    return !exchange.closed;
  }
}
