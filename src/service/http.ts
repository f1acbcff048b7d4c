import { Pool, type Dispatcher, type FormData } from 'undici';
import type { Readable } from 'node:stream';
import { silentLogger, type Logger } from '../system/logger.js';
import { registerSecret } from '../system/secrets.js';
import { ServiceError, headerValue, parseErrorResponse } from './errors.js';
import { isAbortError, abortError } from '../system/abort.js';
import { type Endpoint } from '../contract/endpoints.js';
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep, type RetryPolicy } from './retry.js';
import { LIMITS } from '../contract/limits.js';

export type AuthStyle = 'bearer' | 'x-api-key';
type Headers = Record<string, string | string[] | undefined>;

const IDLE_CODE = 'HARK_STREAM_IDLE';

interface IdleWatchdog {
  refresh(): void;
  clear(): void;
}

export interface Timeouts {
  /** Whole non-streaming call; the service itself gives up at 90 s. */
  requestMs: number;
  /** Longest silence between two chunks of a stream (and before its first one). */
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

export interface CallOptions {
  endpoint: Endpoint;
  /** Path below the base URL, starting with `/`. */
  path: string;
  body: string | FormData;
  /** Set for JSON bodies; multipart bodies bring their own boundary. */
  contentType?: string;
  auth?: AuthStyle;
  accept?: string;
  signal?: AbortSignal | undefined;
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
}

/**
 * Everything hark sends over HTTP goes through here: one keep-alive pool per origin, the
 * key in a header (never in a URL, log or argument), timeouts, and retries with backoff
 * that stop at the first streamed byte, because half a reply must never be replayed.
 */
export class Transport {
  private readonly pools = new Map<string, Pool>();
  private readonly base: URL;
  private readonly apiKey: string;
  private readonly retry: RetryPolicy;
  private readonly timeouts: Timeouts;
  private readonly logger: Logger;
  private readonly connections: number;
  private readonly random: () => number;

  constructor(options: TransportOptions) {
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
    if (this.base.protocol !== 'http:' && this.base.protocol !== 'https:') {
      throw new Error(`service base URL must be http(s), got ${this.base.protocol}`);
    }
    if (!options.apiKey) throw new Error('no API key: set HARK_API_KEY (see README, "The API key")');
    this.apiKey = options.apiKey;
    registerSecret(options.apiKey);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
    this.logger = options.logger ?? silentLogger;
    this.connections = options.connections ?? 8;
    this.random = options.random ?? Math.random;
  }

  get baseUrl(): string {
    return this.base.href;
  }

  /** A non-streaming call: the whole body, within `timeouts.requestMs`. */
  async call(options: CallOptions): Promise<BufferedResponse> {
    const deadline = AbortSignal.timeout(this.timeouts.requestMs);
    const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
    return this.withRetries(options, signal, async (response) => {
      const body = Buffer.from(await response.body.arrayBuffer());
      return { headers: response.headers, body, requestId: requestIdOf(response.headers) };
    }).catch((error: unknown) => {
      if (deadline.aborted && !options.signal?.aborted) {
        throw new ServiceError({
          endpoint: options.endpoint,
          status: 0,
          type: 'timeout',
          message: `no complete response within ${this.timeouts.requestMs} ms (use streaming for long generations)`,
          retryable: false,
          cause: error,
        });
      }
      throw error;
    });
  }

  /** A streaming call; resolves once the first body chunk is in, the last moment a retry is safe. */
  async stream(options: CallOptions): Promise<StreamedResponse> {
    return this.withRetries(options, options.signal, async (response) => {
      const iterator = (response.body as Readable)[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
      const idle = this.idleWatchdog(response.body);
      let first: IteratorResult<Buffer>;
      try {
        first = await iterator.next();
      } catch (error) {
        idle.clear();
        response.body.destroy();
        throw this.transportError(options, error, options.signal);
      }
      if (first.done) {
        idle.clear();
        throw new ServiceError({
          endpoint: options.endpoint,
          status: response.statusCode,
          type: 'empty_stream',
          message: 'the stream ended before its first event',
          retryable: true,
        });
      }
      return {
        headers: response.headers,
        requestId: requestIdOf(response.headers),
        chunks: this.continueStream(options, response.body, iterator, first.value, idle),
      };
    });
  }

  /**
   * Destroys the body when no chunk arrives for `streamIdleMs`. undici's own bodyTimeout
   * ticks in coarse steps (about a second), too blunt for short limits; one refreshed timer is cheap.
   */
  private idleWatchdog(body: Dispatcher.ResponseData['body']): IdleWatchdog {
    const limitMs = this.timeouts.streamIdleMs;
    const timer = setTimeout(() => {
      const error = Object.assign(new Error(`no data for ${limitMs} ms`), { code: IDLE_CODE });
      body.destroy(error);
    }, limitMs);
    return { refresh: () => void timer.refresh(), clear: () => clearTimeout(timer) };
  }

  async close(): Promise<void> {
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private async *continueStream(
    options: CallOptions,
    body: Dispatcher.ResponseData['body'],
    iterator: AsyncIterator<Buffer>,
    first: Buffer,
    idle: IdleWatchdog,
  ): AsyncGenerator<Buffer> {
    try {
      idle.refresh();
      yield first;
      for (;;) {
        let next: IteratorResult<Buffer>;
        try {
          next = await iterator.next();
        } catch (error) {
          throw this.streamError(options, error);
        }
        if (next.done) return;
        idle.refresh();
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
    onSuccess: (response: Dispatcher.ResponseData) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const startedMs = performance.now();
      try {
        const response = await this.send(options, signal);
        if (response.statusCode >= 400) {
          const bodyText = await response.body.text().catch(() => '');
          throw parseErrorResponse({
            endpoint: options.endpoint,
            status: response.statusCode,
            headers: response.headers,
            bodyText,
          });
        }
        const result = await onSuccess(response);
        this.logger.debug('service.call', {
          endpoint: options.endpoint,
          status: response.statusCode,
          attempt,
          ms: Math.round(performance.now() - startedMs),
        });
        return result;
      } catch (caught) {
        const error = caught instanceof ServiceError ? caught : this.transportError(options, caught, signal);
        if (!(error instanceof ServiceError) || !error.retryable || attempt >= this.retry.maxRetries) {
          throw error;
        }
        const delayMs = retryDelayMs(this.retry, attempt + 1, error.retryAfterMs, this.random);
        if (delayMs === undefined) throw error;
        this.logger.warn('service.retry', {
          endpoint: options.endpoint,
          attempt: attempt + 1,
          delayMs: Math.round(delayMs),
          status: error.status,
          type: error.type,
        });
        await sleep(delayMs, signal);
      }
    }
  }

  private send(options: CallOptions, signal: AbortSignal | undefined): Promise<Dispatcher.ResponseData> {
    const url = new URL(options.path.replace(/^\//, ''), this.base);
    const headers: Record<string, string> = {
      'user-agent': 'hark/0.1',
      accept: options.accept ?? 'application/json',
    };
    if (options.contentType) headers['content-type'] = options.contentType;
    if (options.auth === 'x-api-key') headers['x-api-key'] = this.apiKey;
    else headers.authorization = `Bearer ${this.apiKey}`;
    return this.pool(url.origin).request({
      path: url.pathname + url.search,
      method: 'POST',
      headers,
      body: options.body,
      signal,
      headersTimeout: this.timeouts.requestMs,
      // Streams have their own idle watchdog; whole calls have their deadline.
      bodyTimeout: 0,
    });
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.connections,
        keepAliveTimeout: 30_000,
        connect: { timeout: this.timeouts.connectMs },
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** A failure before any byte of the body: the connection, a timeout, or the caller's abort. */
  private transportError(options: CallOptions, error: unknown, signal: AbortSignal | undefined): Error {
    if (signal?.aborted) return abortError(signal.reason);
    if (isAbortError(error)) return error as Error;
    const code = errorCode(error);
    const timeout = code === 'UND_ERR_HEADERS_TIMEOUT' || code === IDLE_CODE;
    return new ServiceError({
      endpoint: options.endpoint,
      status: 0,
      type: timeout ? 'timeout' : 'connection_error',
      message: describeTransportError(error),
      code,
      retryable: !timeout,
      cause: error,
    });
  }

  /** A failure after the first streamed byte: never retried. */
  private streamError(options: CallOptions, error: unknown): Error {
    if (options.signal?.aborted) return abortError(options.signal.reason);
    if (isAbortError(error)) return error as Error;
    const code = errorCode(error);
    const idle = code === IDLE_CODE;
    return new ServiceError({
      endpoint: options.endpoint,
      status: 0,
      type: idle ? 'stream_idle_timeout' : 'stream_interrupted',
      message: idle
        ? `no data for ${this.timeouts.streamIdleMs} ms in the middle of the stream`
        : `the stream broke off: ${describeTransportError(error)}`,
      code,
      retryable: false,
      cause: error,
    });
  }
}

function requestIdOf(headers: Headers): string | undefined {
  return headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id');
}

function errorCode(error: unknown): string | undefined {
  if (typeof error === 'object' && error !== null && 'code' in error) {
    const code = error.code;
    return typeof code === 'string' ? code : undefined;
  }
  return undefined;
}

function describeTransportError(error: unknown): string {
  if (error instanceof Error) {
    const code = errorCode(error);
    return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
  }
  return String(error);
}
