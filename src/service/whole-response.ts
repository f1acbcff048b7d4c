import type { Dispatcher } from 'undici';
import { abortError } from '../system/abort.js';
import { asError } from '../system/as-error.js';

type Headers = Record<string, string | string[] | undefined>;

export interface WholeResponse {
  statusCode: number;
  headers: Headers;
  body: Buffer;
  /** The body broke off after the headers (what arrived is in `body`). */
  broken?: Error;
}

/**
 * Sends a request and gathers its whole answer as it arrives, for calls that need all of it (a
 * transcript, a non-streaming reply). undici's `request()` would hand the body over as a stream,
 * whose end is told a tick later and read through a promise per step: a transcript's answer is
 * on the way to the reply request, and this is the shorter road. Headers before the body fails
 * reject (as `request()` would); a body that breaks off resolves with `broken` set, so the caller
 * can still name an error status or a page that is not what it asked for.
 */
export function requestWhole(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignal | undefined,
): Promise<WholeResponse> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let started: { statusCode: number; headers: Headers } | undefined;
    let controller: Dispatcher.DispatchController | undefined;
    let reason: Error | undefined;
    const onAbort = (): void => {
      reason = abortReason(signal);
      controller?.abort(reason);
    };
    const settle = (): void => signal?.removeEventListener('abort', onAbort);
    if (signal?.aborted) reason = abortReason(signal);
    else signal?.addEventListener('abort', onAbort, { once: true });
    const handler: Dispatcher.DispatchHandler = {
      onRequestStart(control) {
        controller = control;
        if (reason) control.abort(reason);
      },
      onResponseStart(_control, statusCode, headers) {
        // 1xx answers are interim: the real one follows.
        if (statusCode >= 200) started = { statusCode, headers };
      },
      onResponseData(_control, chunk) {
        chunks.push(chunk);
      },
      onResponseEnd() {
        settle();
        if (started) resolve({ ...started, body: Buffer.concat(chunks) });
        else reject(new Error('the response ended before its headers'));
      },
      onResponseError(_control, error) {
        settle();
        if (started) resolve({ ...started, body: Buffer.concat(chunks), broken: error });
        else reject(error);
      },
    };
    try {
      dispatcher.dispatch(options, handler);
    } catch (error) {
      settle();
      reject(asError(error));
    }
  });
}

/** The caller's reason, as undici passes it on (it must be an Error). */
function abortReason(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : abortError(reason);
}
