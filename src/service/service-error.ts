import { excerpt, redact } from '../system/secrets.js';

import type { ServiceEndpoint } from '../contract/endpoints.js';

/** HTTP statuses worth another attempt (rate limit, server trouble, messages-style overload). */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 500, 502, 503, 504, 529]);

export interface ServiceErrorInit {
  endpoint: ServiceEndpoint;
  status: number;
  type: string;
  message: string;
  code?: string | undefined;
  param?: string | undefined;
  requestId?: string | undefined;
  retryable?: boolean;
  retryAfterMs?: number | undefined;
  /** An `error` event inside a stream that began with HTTP 200 (then `status` is 0). */
  inStream?: boolean;
  cause?: unknown;
}

/**
 * Every failure of a call to the service: an HTTP error status, a transport failure
 * (status 0), a timeout or a broken stream. `retryable` says whether trying again may help.
 */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly endpoint: ServiceEndpoint;
  readonly status: number;
  readonly type: string;
  readonly code: string | undefined;
  readonly param: string | undefined;
  readonly requestId: string | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(init: ServiceErrorInit) {
    const where = init.inStream
      ? `stream error ${init.type}`
      : init.status > 0
        ? `HTTP ${init.status} ${init.type}`
        : init.type;
    const id = init.requestId ? ` (request ${init.requestId})` : '';
    super(redact(`${init.endpoint}: ${where}: ${init.message}${id}`), { cause: init.cause });
    this.endpoint = init.endpoint;
    this.status = init.status;
    this.type = init.type;
    this.code = init.code;
    this.param = init.param;
    this.requestId = init.requestId;
    this.retryable = init.retryable ?? RETRYABLE_STATUSES.has(init.status);
    this.retryAfterMs = init.retryAfterMs;
  }
}

const ANTHROPIC_TYPE_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

/** The status an in-stream error event stands for, so `retryable` means the same everywhere. */
export function statusForErrorType(type: string): number {
  return ANTHROPIC_TYPE_STATUS[type] ?? 500;
}

/**
 * An `error` event in a stream whose HTTP status was 200: reported as what it is
 * ("stream error overloaded_error: ..."), not as the HTTP status its type would have had.
 */
export function streamErrorEvent(
  endpoint: ServiceEndpoint,
  error: Record<string, unknown>,
  fallbackType: string,
  requestId?: string,
): ServiceError {
  const type = typeof error.type === 'string' && error.type ? error.type : fallbackType;
  return new ServiceError({
    endpoint,
    status: 0,
    type,
    message: typeof error.message === 'string' && error.message ? error.message : 'the service reported an error',
    requestId,
    inStream: true,
    retryable: RETRYABLE_STATUSES.has(statusForErrorType(type)),
  });
}

export interface ErrorResponse {
  endpoint: ServiceEndpoint;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bodyText: string;
}

/**
 * Reads an error response in any of the shapes seen: OpenAI-style
 * `{error: {message, type, param, code}}`, Anthropic-style
 * `{type: "error", error: {type, message}, request_id}`, a bare `{message}`, or plain text.
 */
export function parseErrorResponse(response: ErrorResponse): ServiceError {
  const { endpoint, status, headers, bodyText } = response;
  const headerRequestId = headerValue(headers, 'x-request-id') ?? headerValue(headers, 'request-id');
  const retryAfterMs = parseRetryAfter(headers);
  const fallbackType = status === 401 ? 'authentication_error' : `http_${status}`;
  const body = tryParseJson(bodyText);
  if (isRecord(body)) {
    const inner = body.error;
    if (isRecord(inner)) {
      return new ServiceError({
        endpoint,
        status,
        type: stringField(inner, 'type') ?? stringField(body, 'type') ?? fallbackType,
        message: stringField(inner, 'message') ?? (excerpt(bodyText, 500) || `HTTP ${status}`),
        code: scalarField(inner, 'code'),
        param: stringField(inner, 'param'),
        requestId: stringField(body, 'request_id') ?? headerRequestId,
        retryAfterMs,
      });
    }
    const message = stringField(body, 'message') ?? (typeof inner === 'string' ? inner : undefined);
    if (message !== undefined) {
      return new ServiceError({
        endpoint,
        status,
        type: stringField(body, 'type') ?? fallbackType,
        message,
        code: scalarField(body, 'code'),
        requestId: stringField(body, 'request_id') ?? headerRequestId,
        retryAfterMs,
      });
    }
  }
  const text = excerpt(bodyText.trim().replace(/\s+/g, ' '), 500);
  return new ServiceError({
    endpoint,
    status,
    type: fallbackType,
    message: text || `HTTP ${status} with an empty body`,
    requestId: headerRequestId,
    retryAfterMs,
  });
}

/** `Retry-After` as seconds or an HTTP date, or `retry-after-ms`; undefined when absent or unreadable. */
export function parseRetryAfter(
  headers: Record<string, string | string[] | undefined>,
  nowMs: number = Date.now(),
): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headerValue(headers, 'retry-after');
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - nowMs);
}

export function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}

function scalarField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
