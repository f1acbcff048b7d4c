import { defer, fromEvent, of, take, type Observable } from 'rxjs';

/** Cancellation: what an aborted call throws, how to recognise one, and when it comes. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'RequestAbortedError');
}

export function abortError(reason?: unknown): Error {
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('The operation was aborted', 'AbortError');
}

/** Emits once `signal` is aborted: at once when it already is. */
export function whenAborted(signal: AbortSignal): Observable<unknown> {
  return defer(() => (signal.aborted ? of(signal.reason) : fromEvent(signal, 'abort').pipe(take(1))));
}
