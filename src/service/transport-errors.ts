import type { ServiceEndpoint } from '../contract/endpoints.js';
import { abortError, isAbortError } from '../system/abort.js';
import { ServiceError } from './service-error.js';
import type { IdleWatchdog } from './idle-watchdog.js';

/** A failure before any byte of the body: the connection, a timeout, or the caller's abort. */
export function transportError(endpoint: ServiceEndpoint, error: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return abortError(signal.reason);
  if (isAbortError(error)) return error as Error;
  const code = errorCode(error);
  const timeout = code === 'UND_ERR_HEADERS_TIMEOUT';
  return new ServiceError({
    endpoint,
    status: 0,
    type: timeout ? 'timeout' : 'connection_error',
    message: describeTransportError(error),
    code,
    retryable: !timeout,
    cause: error,
  });
}

/** A failure after the first streamed byte: never retried. */
export function streamError(endpoint: ServiceEndpoint, error: unknown, signal: AbortSignal | undefined): Error {
  if (signal?.aborted) return abortError(signal.reason);
  if (isAbortError(error)) return error as Error;
  return new ServiceError({
    endpoint,
    status: 0,
    type: 'stream_interrupted',
    message: `the stream broke off: ${describeTransportError(error)}`,
    code: errorCode(error),
    retryable: false,
    cause: error,
  });
}

/** The watchdog gave up: no headers, or no content, in time. Not retried: the user has waited long enough. */
export function idleError(endpoint: ServiceEndpoint, idle: IdleWatchdog, cause: unknown): ServiceError {
  return new ServiceError({
    endpoint,
    status: 0,
    type: 'stream_idle_timeout',
    message: idle.describe(),
    retryable: false,
    cause,
  });
}

/** A non-streaming call that did not complete within its limit. */
export function deadlineError(endpoint: ServiceEndpoint, limitMs: number, cause: unknown): ServiceError {
  return new ServiceError({
    endpoint,
    status: 0,
    type: 'timeout',
    message: `no complete response within ${limitMs} ms (use streaming for long generations)`,
    retryable: false,
    cause,
  });
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
