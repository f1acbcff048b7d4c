import type { Dispatcher } from 'undici';
import type { ServiceEndpoint } from '../contract/endpoints.js';
import { mediaTypeOf, unexpectedContent, unexpectedContentIn, type ContentExpectation } from './content-type.js';
import { headerValue, parseErrorResponse } from './service-error.js';
import { wireBody } from './multipart.js';
import type { Pools } from './pools.js';
import { requestWhole, type WholeResponse } from './whole-response.js';

export type AuthStyle = 'bearer' | 'x-api-key';
type Headers = Record<string, string | string[] | undefined>;

export const USER_AGENT = 'hark/0.1';

export interface CallOptions {
  endpoint: ServiceEndpoint;
  /** Path below the base URL, starting with `/`. */
  path: string;
  /** JSON text, or a body in pieces (a multipart upload) sent without joining them. */
  body: string | readonly Uint8Array[];
  contentType?: string;
  auth?: AuthStyle;
  accept?: string;
  /** What a successful response must be; a web page where audio was asked for fails clearly. */
  expect?: ContentExpectation;
  signal?: AbortSignal | undefined;
}

/**
 * One attempt at a call: the request as undici takes it (the key in a header, never in the
 * URL), sent on the origin's keep-alive pool, and the answer checked by its status and media
 * type before anyone reads it. Timeouts and retries are the caller's (see Transport).
 */
export class RequestSender {
  private readonly urls = new Map<string, URL>();

  constructor(
    private readonly base: URL,
    private readonly apiKey: string,
    private readonly pools: Pools,
  ) {}

  /** Sends, and turns an error status or a body of the wrong kind (a web page) into a ServiceError. */
  async checked(
    options: CallOptions,
    signal: AbortSignal | undefined,
    headersTimeoutMs: number,
  ): Promise<Dispatcher.ResponseData> {
    const { origin, request } = this.prepare(options, headersTimeoutMs);
    const response = await (await this.poolFor(origin)).request({ ...request, signal });
    const wrong = unwanted(options, response.statusCode, response.headers);
    if (wrong === 'status') {
      const bodyText = await response.body.text().catch(() => '');
      throw parseErrorResponse({
        endpoint: options.endpoint,
        status: response.statusCode,
        headers: response.headers,
        bodyText,
      });
    }
    if (wrong) throw await unexpectedContent(options.endpoint, wrong.mediaType, wrong.expect, response.body);
    return response;
  }

  /** The same for a call that needs the whole answer, gathered as it arrives (see requestWhole). */
  async whole(options: CallOptions, signal: AbortSignal | undefined, headersTimeoutMs: number): Promise<WholeResponse> {
    const { origin, request } = this.prepare(options, headersTimeoutMs);
    const response = await requestWhole(await this.poolFor(origin), request, signal);
    const { statusCode, headers, body, broken } = response;
    const wrong = unwanted(options, statusCode, headers);
    if (wrong === 'status') {
      const bodyText = broken ? '' : body.toString('utf8');
      throw parseErrorResponse({ endpoint: options.endpoint, status: statusCode, headers, bodyText });
    }
    if (wrong) throw unexpectedContentIn(options.endpoint, wrong.mediaType, wrong.expect, body);
    if (broken) throw broken;
    return response;
  }

  /** Each endpoint's URL, resolved once (a turn's requests lie between the user's last word and hark's first). */
  private urlOf(path: string): URL {
    const url = this.urls.get(path) ?? new URL(path.replace(/^\//, ''), this.base);
    this.urls.set(path, url);
    return url;
  }

  /** The origin's pool: the one already open at once, else opened (the first call to it waits). */
  private async poolFor(origin: string) {
    return this.pools.opened(origin) ?? (await this.pools.of(origin));
  }

  /** Where to send, and the request as undici takes it: headers (the key among them) and timeouts. */
  private prepare(
    options: CallOptions,
    headersTimeoutMs: number,
  ): { origin: string; request: Dispatcher.DispatchOptions } {
    const url = this.urlOf(options.path);
    const headers: Record<string, string> = {
      'user-agent': USER_AGENT,
      accept: options.accept ?? 'application/json',
    };
    if (options.contentType) headers['content-type'] = options.contentType;
    const { body, length } = wireBody(options.body);
    if (length !== undefined) headers['content-length'] = String(length);
    if (options.auth === 'x-api-key') headers['x-api-key'] = this.apiKey;
    else headers.authorization = `Bearer ${this.apiKey}`;
    return {
      origin: url.origin,
      request: {
        path: url.pathname + url.search,
        method: 'POST',
        headers,
        body,
        headersTimeout: headersTimeoutMs,
        // Streams have their own idle watchdog; whole calls have their deadline.
        bodyTimeout: 0,
      },
    };
  }
}

export function requestIdOf(headers: Headers): string | undefined {
  return headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id');
}

/**
 * What is wrong with an answer by its status and media type, before its body is read: an error
 * status, or a body of another kind than the call expects (a web page), or nothing.
 */
function unwanted(
  options: CallOptions,
  statusCode: number,
  headers: Record<string, string | string[] | undefined>,
): 'status' | { mediaType: string; expect: ContentExpectation } | undefined {
  if (statusCode >= 400) return 'status';
  const mediaType = mediaTypeOf(headers);
  if (options.expect && mediaType && !options.expect.accepts(mediaType)) return { mediaType, expect: options.expect };
  return undefined;
}
