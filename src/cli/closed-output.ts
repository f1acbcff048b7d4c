import { stopInOrder } from './interrupt.js';

/**
 * The reader of hark's output gone (output piped into `head` and the like): the reader's choice,
 * not a failure. stderr carries only the log and progress, so nothing stops for it. A command
 * printing what it made on stdout ends there, quietly: in order when it can stop so (a file it
 * was writing is finished or removed, never left half-written), and with exit code 0. The voice
 * loop, whose stdout is its log, goes on without it: a daemon must not stop, nor lose the turn
 * and the file it writes, because whoever read its log went away.
 */
let keepRunning = false;
let stoppedForReader = false;
const closed = new Set<'stdout' | 'stderr'>();

/** For the voice loop: stdout closing is ignored from now on. */
export function keepRunningWithoutOutput(): void {
  keepRunning = true;
}

/** The command was stopped because the reader of its stdout went away: its exit code is 0. */
export function stoppedByReader(): boolean {
  return stoppedForReader;
}

/** The 'error' handler of stdout or stderr. */
export function onOutputError(stream: 'stdout' | 'stderr'): (error: NodeJS.ErrnoException) => void {
  return (error) => {
    const gone = error.code === 'EPIPE' || (closed.has(stream) && error.code === 'ERR_STREAM_DESTROYED');
    if (!gone) throw error;
    const first = !closed.has(stream);
    closed.add(stream);
    if (!first || stream === 'stderr' || keepRunning) return;
    stoppedForReader = true;
    if (!stopInOrder()) process.exit(0);
  };
}
