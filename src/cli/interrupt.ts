/**
 * Runs `work` with a signal that Ctrl-C (SIGINT) or SIGTERM aborts, so a command can stop in
 * order and keep what it made; the handlers are gone once the work settles.
 */
export async function interruptible<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  try {
    return await work(stop.signal);
  } finally {
    process.off('SIGINT', abort);
    process.off('SIGTERM', abort);
  }
}
