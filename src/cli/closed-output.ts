/**
 * Output piped into `head` and the like, the reader gone: a closed pipe is the reader's choice,
 * not a failure. A command printing what it made ends there, quietly: in order, as on SIGTERM,
 * when it handles that (a file it was writing is finished or removed, never left half-written).
 * The voice loop, whose output is its log, goes on without it: a daemon must not stop, nor lose
 * the turn and the file it writes, because whoever read its log went away.
 */
let keepRunning = false;
let closed = false;

/** For the voice loop: a closed output is ignored from now on. */
export function keepRunningWithoutOutput(): void {
  keepRunning = true;
}

/** The 'error' handler of stdout and stderr. */
export function onOutputError(error: NodeJS.ErrnoException): void {
  const gone = error.code === 'EPIPE' || (closed && error.code === 'ERR_STREAM_DESTROYED');
  if (!gone) throw error;
  const first = !closed;
  closed = true;
  if (!first || keepRunning) return;
  if (process.listenerCount('SIGTERM') > 0) process.emit('SIGTERM', 'SIGTERM');
  else process.exit(0);
}
