import { asError } from './as-error.js';

/**
 * `work`, unless `deadline` is aborted first: then it fails with the deadline's reason, and what
 * `work` still delivers later is handed to `late` (to be closed), never used.
 */
export function withinDeadline<T>(work: Promise<T>, deadline: AbortSignal, late: (value: T) => unknown): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const giveUp = (): void => {
      reject(asError(deadline.reason));
      // Closing what came too late may fail too: nothing is waiting for it.
      work.then(late).catch(() => undefined);
    };
    if (deadline.aborted) return giveUp();
    deadline.addEventListener('abort', giveUp, { once: true });
    work.then(
      (value) => {
        deadline.removeEventListener('abort', giveUp);
        resolve(value);
      },
      (error: unknown) => {
        deadline.removeEventListener('abort', giveUp);
        reject(asError(error));
      },
    );
  });
}

/** A deadline `ms` from now, saying `message` when it passes; it never keeps the process alive. */
export function deadlineIn(ms: number, message: string): AbortSignal {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error(message)), ms).unref();
  return controller.signal;
}
