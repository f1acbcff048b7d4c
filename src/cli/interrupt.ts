/** What the command under way stops with, in order, when asked: by a signal, or by its reader leaving. */
let stopUnderWay: (() => void) | undefined;

/**
 * Runs `work` with a signal that Ctrl-C (SIGINT), SIGTERM or `stopInOrder` aborts, so a command
 * can stop in order and keep what it made; the handlers are gone once the work settles.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  // Once: a second Ctrl-C ends hark at once, should stopping in order hang.
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  stopUnderWay = abort;
  try {
    return await work(stop.signal);
  } finally {
    stopUnderWay = undefined;
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}

/** Stops the command under way as a signal would; false when none is (it would just end). */
export function stopInOrder(): boolean {
  stopUnderWay?.();
  return stopUnderWay !== undefined;
}
