import { silentLogger, type Logger } from '../system/logger.js';
import { ServiceError } from './errors.js';
import { type Endpoint } from '../contract/endpoints.js';
import type { Transport } from './http.js';
import type { Edition } from '../contract/models.js';
import type { Checker } from '../contract/rules/checker.js';
import { decodeSse, type SseEvent } from './sse.js';

export interface ClientOptions {
  transport: Transport;
  edition?: Edition;
  logger?: Logger;
}

export interface CallSignal {
  signal?: AbortSignal | undefined;
}

/** What every endpoint client shares: the transport, the edition, and warnings logged once each. */
export abstract class ClientBase {
  protected readonly transport: Transport;
  protected readonly edition: Edition;
  protected readonly logger: Logger;
  private readonly warned = new Set<string>();

  constructor(options: ClientOptions) {
    this.transport = options.transport;
    this.edition = options.edition ?? 'A';
    this.logger = options.logger ?? silentLogger;
  }

  /** Refuses a request that breaks a limit; logs what is merely doubtful, once per distinct message. */
  protected enforce(endpoint: Endpoint, check: Checker): void {
    for (const warning of check.enforce()) {
      if (this.warned.has(warning)) continue;
      this.warned.add(warning);
      this.logger.warn('service.request_warning', { endpoint, warning });
    }
  }

  /** Opens a stream and yields its SSE events, parsed as JSON, until the server ends it. */
  protected async *jsonEvents(
    endpoint: Endpoint,
    path: string,
    body: unknown,
    options: CallSignal & { auth?: 'bearer' | 'x-api-key' },
  ): AsyncGenerator<{ sse: SseEvent; json: unknown }> {
    const response = await this.transport.stream({
      endpoint,
      path,
      body: JSON.stringify(body),
      contentType: 'application/json',
      accept: 'text/event-stream',
      auth: options.auth,
      signal: options.signal,
    });
    for await (const sse of decodeSse(response.chunks)) {
      yield { sse, json: sse.data === '[DONE]' ? DONE : parseEventJson(endpoint, sse.data) };
    }
  }

  protected async postJson(
    endpoint: Endpoint,
    path: string,
    body: unknown,
    options: CallSignal & { auth?: 'bearer' | 'x-api-key' },
  ): Promise<unknown> {
    const response = await this.transport.call({
      endpoint,
      path,
      body: JSON.stringify(body),
      contentType: 'application/json',
      auth: options.auth,
      signal: options.signal,
    });
    return parseBodyJson(endpoint, response.body, response.requestId);
  }
}

/** Marks the `data: [DONE]` terminator some chat streams send. */
export const DONE: unique symbol = Symbol('[DONE]');

function parseEventJson(endpoint: Endpoint, data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ServiceError({
      endpoint,
      status: 0,
      type: 'malformed_stream',
      message: `an event's data is not JSON: ${data.slice(0, 80)}`,
      retryable: false,
    });
  }
}

export function parseBodyJson(endpoint: Endpoint, body: Buffer, requestId: string | undefined): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    throw badResponse(endpoint, `the response is not JSON: ${body.toString('utf8', 0, 80)}`, requestId);
  }
}

export function badResponse(endpoint: Endpoint, message: string, requestId?: string): ServiceError {
  return new ServiceError({ endpoint, status: 0, type: 'bad_response', message, requestId, retryable: false });
}

export function truncatedStream(endpoint: Endpoint, what: string): ServiceError {
  return new ServiceError({
    endpoint,
    status: 0,
    type: 'stream_truncated',
    message: `the stream ended before ${what}`,
    retryable: false,
  });
}
