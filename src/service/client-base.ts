import { silentLogger, type Logger } from '../system/logger.js';
import { ServiceError } from './service-error.js';
import { type ServiceEndpoint } from '../contract/endpoints.js';
import type { BufferedResponse, Transport } from './http.js';
import { EXPECT_JSON, EXPECT_SSE, mediaTypeOf } from './content-type.js';
import { excerpt } from '../system/secrets.js';
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
  protected enforce(endpoint: ServiceEndpoint, check: Checker): void {
    for (const warning of check.enforce()) {
      if (this.warned.has(warning)) continue;
      this.warned.add(warning);
      this.logger.warn('service.request_warning', { endpoint, warning });
    }
  }

  /**
   * Opens a stream of SSE events, parsed as JSON, until the server ends it. The reader calls
   * `progress()` for each event that carried content; keep-alives alone let the stream time out.
   */
  protected async openEvents(
    endpoint: ServiceEndpoint,
    path: string,
    body: unknown,
    options: CallSignal & { auth?: 'bearer' | 'x-api-key' },
  ): Promise<JsonEventStream> {
    const response = await this.transport.stream({
      endpoint,
      path,
      body: JSON.stringify(body),
      contentType: 'application/json',
      accept: 'text/event-stream',
      expect: EXPECT_SSE,
      auth: options.auth,
      signal: options.signal,
    });
    return { events: jsonEvents(endpoint, response.chunks), progress: () => response.progress() };
  }

  protected async postJson(
    endpoint: ServiceEndpoint,
    path: string,
    body: unknown,
    options: CallSignal & { auth?: 'bearer' | 'x-api-key' },
  ): Promise<unknown> {
    const response = await this.transport.call({
      endpoint,
      path,
      body: JSON.stringify(body),
      contentType: 'application/json',
      expect: EXPECT_JSON,
      auth: options.auth,
      signal: options.signal,
    });
    return parseBodyJson(endpoint, response);
  }
}

export interface JsonEventStream {
  events: AsyncGenerator<{ sse: SseEvent; json: unknown }>;
  progress(): void;
}

async function* jsonEvents(
  endpoint: ServiceEndpoint,
  chunks: AsyncIterable<Buffer>,
): AsyncGenerator<{ sse: SseEvent; json: unknown }> {
  for await (const sse of decodeSse(chunks)) {
    yield { sse, json: sse.data === '[DONE]' ? DONE : parseEventJson(endpoint, sse.data) };
  }
}

/** Marks the `data: [DONE]` terminator some chat streams send. */
export const DONE: unique symbol = Symbol('[DONE]');

function parseEventJson(endpoint: ServiceEndpoint, data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    throw new ServiceError({
      endpoint,
      status: 0,
      type: 'malformed_stream',
      message: `an event's data is not JSON: ${excerpt(data, 80)}`,
      retryable: false,
    });
  }
}

export function parseBodyJson(endpoint: ServiceEndpoint, response: BufferedResponse): unknown {
  const text = response.body.toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    const type = mediaTypeOf(response.headers);
    const what =
      type && type !== 'application/json' ? `the service answered with ${type}, not JSON` : 'the response is not JSON';
    throw badResponse(endpoint, `${what}: ${excerpt(text, 80)}`, response.requestId);
  }
}

export function badResponse(endpoint: ServiceEndpoint, message: string, requestId?: string): ServiceError {
  return new ServiceError({ endpoint, status: 0, type: 'bad_response', message, requestId, retryable: false });
}

export function truncatedStream(endpoint: ServiceEndpoint, what: string): ServiceError {
  return new ServiceError({
    endpoint,
    status: 0,
    type: 'stream_truncated',
    message: `the stream ended before ${what}`,
    retryable: false,
  });
}
