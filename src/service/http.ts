import type { Dispatcher } from 'undici';
import type { Readable } from 'node:stream';
import { silentLogger, type Logger } from '../system/logger.js';
import { registerSecret } from '../system/secrets.js';
import { ServiceError } from './service-error.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep, type RetryPolicy } from './retry.js';
import { LIMITS } from '../contract/limits.js';
import { IdleWatchdog } from './idle-watchdog.js';
import { Pools } from './pools.js';
import { RequestSender, USER_AGENT, requestIdOf, type CallOptions } from './send-request.js';
import { deadlineError, idleError, streamError, transportError } from './transport-errors.js';

export type { AuthStyle, CallOptions } from './send-request.js';
type Headers = Record<string, string | string[] | undefined>;

export interface Timeouts {
  /** Whole non-streaming call; the service itself gives up at 90 s. */
  requestMs: number;
  /** A stream's longest wait for its headers, and then for content (keep-alives do not count). */
  streamIdleMs: number;
  connectMs: number;
}

export const DEFAULT_TIMEOUTS: Timeouts = {
  requestMs: LIMITS.nonStreamingTimeoutMs,
  streamIdleMs: 30_000,
  connectMs: 10_000,
};

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  retry?: Partial<RetryPolicy>;
  timeouts?: Partial<Timeouts>;
  logger?: Logger;
  /** Keep-alive connections per origin. */
  connections?: number;
  random?: () => number;
}

export interface BufferedResponse {
  headers: Headers;
  body: Buffer;
  requestId: string | undefined;
}

export interface StreamedResponse {
  headers: Headers;
  requestId: string | undefined;
  /** Body chunks; the first one has already arrived. Breaking out of the loop closes the connection. */
  chunks: AsyncIterable<Buffer>;
  /** Call when the stream carried content: without it for `streamIdleMs`, the stream fails. */
  progress(): void;
}

/**
 * Everything hark sends over HTTP goes through here: one keep-alive pool per origin, the
 * key in a header (never in a URL, log or argument), timeouts, and retries with backoff
 * that stop at the first streamed byte, because half a reply must never be replayed.
 */
export class Transport {
  private readonly pools: Pools;
  private readonly base: URL;
  private readonly sender: RequestSender;
  private readonly retry: RetryPolicy;
  private readonly timeouts: Timeouts;
  private readonly logger: Logger;
  private readonly random: () => number;

  constructor(options: TransportOptions) {
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') {
      throw new Error(`service base URL must be http(s), got ${this.base.protocol}`);
    }
    if (!options.apiKey) throw new Error('no API key: set HARK_API_KEY (see README, "The API key")');
    registerSecret(options.apiKey);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.logger = options.logger ?? silentLogger;
    this.random = options.random ?? Math.random;
    this.pools = new Pools({
      connections: options.connections ?? 8,
      connectMs: this.timeouts.connectMs,
      userAgent: USER_AGENT,
      logger: this.logger,
    });
    this.sender = new RequestSender(this.base, options.apiKey, this.pools);
  }

  get baseUrl(): string {
    return this.base.href;
  }

  /** A non-streaming call: the whole body, within `timeouts.requestMs`. */
  async call(options: CallOptions): Promise<BufferedResponse> {
    const deadline = AbortSignal.timeout(this.timeouts.requestMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    return this.withRetries(options, signal, async () => {
      const { headers, body } = await this.sender.whole(options, signal, this.timeouts.requestMs);
      return { headers, body, requestId: requestIdOf(headers) };
    }).catch((error: unknown) => {
      if (deadline.aborted && !options.signal?.aborted)
        throw deadlineError(options.endpoint, this.timeouts.requestMs, error);
      throw error;
    });
  }

  /**
   * A streaming call; resolves once the first body chunk is in, the last moment a retry is safe.
   * The headers must come within `streamIdleMs`, and then content (the caller's `progress()`)
   * at least every `streamIdleMs`, or the stream fails with `stream_idle_timeout`.
   */
  async stream(options: CallOptions): Promise<StreamedResponse> {
    return this.withRetries(options, options.signal, async () => {
      const idle = new IdleWatchdog(this.timeouts.streamIdleMs);
      const signal = options.signal ? AbortSignal.any([options.signal, idle.signal]) : idle.signal;
      let body: Dispatcher.ResponseData['body'] | undefined;
      try {
        const response = await this.sender.checked(options, signal, this.timeouts.streamIdleMs);
        body = response.body;
        idle.headersArrived();
        const iterator = (body as Readable)[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
        const first = await iterator.next();
        if (first.done) {
          throw new ServiceError({
            endpoint: options.endpoint,
            status: response.statusCode,
            type: 'empty_stream',
            message: 'the stream ended before its first event',
            retryable: true,
          });
        }
        idle.bytes();
        return {
          headers: response.headers,
          requestId: requestIdOf(response.headers),
          chunks: this.continueStream(options, body, iterator, first.value, idle),
          progress: () => idle.progress(),
        };
      } catch (error) {
        idle.clear();
        body?.destroy();
        if (idle.fired && !options.signal?.aborted) throw idleError(options.endpoint, idle, error);
        throw error;
      }
    });
  }

  /** Opens connections to the service before a turn needs them (see Pools.warm). */
  warm(connections = 2): Promise<void> {
    return this.pools.warm(this.base, connections);
  }

  close(): Promise<void> {
    return this.pools.close();
  }

  private async *continueStream(
    options: CallOptions,
    body: Dispatcher.ResponseData['body'],
    iterator: AsyncIterator<Buffer>,
    first: Buffer,
    idle: IdleWatchdog,
  ): AsyncGenerator<Buffer> {
    try {
      yield first;
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw idle.fired && !options.signal?.aborted
            ? idleError(options.endpoint, idle, error)
            : streamError(options.endpoint, error, options.signal);
        }
        if (next.done) return;
        idle.bytes();
        yield next.value;
      }
    } finally {
      idle.clear();
      if (!body.readableEnded) body.destroy();
    }
  }

  private async withRetries<T>(
    options: CallOptions,
    signal: AbortSignal | undefined,
    attempt: () => Promise<T>,
  ): Promise<T> {
    for (let attemptNo = 0; ; attemptNo++) {
      const startedMs = performance.now();
      try {
        const result = await attempt();
        this.logger.debug('service.call', {
          endpoint: options.endpoint,
          attempt: attemptNo,
          ms: Math.round(performance.now() - startedMs),
        });
        return result;
      } catch (caught) {
        const error = caught instanceof ServiceError ? caught : transportError(options.endpoint, caught, signal);
        if (!(error instanceof ServiceError) || !error.retryable || attemptNo >= this.retry.maxRetries) {
          throw error;
        }
        const delayMs = retryDelayMs(this.retry, attemptNo + 1, error.retryAfterMs, this.random);
        if (delayMs === undefined) throw error;
        this.logger.warn('service.retry', {
          endpoint: options.endpoint,
          attempt: attemptNo + 1,
          delayMs: Math.round(delayMs),
          status: error.status,
          type: error.type,
        });
        await sleep(delayMs, signal);
      }
    }
  }
}
