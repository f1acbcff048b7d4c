import { abortError } from '../system/abort.js';

export interface RetryPolicy {
  /** Attempts after the first one. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server asking to wait longer than this is not retried: the user would rather hear the error. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 400,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 30_000,
};

/**
 * Delay before retry number `retry` (1-based): the server's Retry-After when given, else
 * exponential backoff with "equal jitter" (half fixed, half random) so clients spread out.
 * Returns undefined when the server asks for more patience than the policy allows.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retryAfterMs !== undefined) {
    return retryAfterMs > policy.maxRetryAfterMs ? undefined : retryAfterMs;
  }
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return exponential / 2 + (random() * exponential) / 2;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal.reason));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
