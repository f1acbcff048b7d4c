import type { Clock } from '../system/clock.js';

/** A player process that dies within this long of starting failed at once: it played nothing, and counts as failing again. */
export const QUICK_DEATH_MS = 2000;
const FIRST_WAIT_MS = 500;
const LONGEST_WAIT_MS = 30_000;

/**
 * When a player process that failed may be started again: each failure soon after a start
 * doubles the wait, from 0.5 s to 30 s, so a device that is gone or busy costs at most a few
 * starts a minute instead of one per write; one that ran a while starts the count again.
 */
export class Restarts {
  private failures = 0;
  private notBefore = -Infinity;

  constructor(private readonly time: Pick<Clock, 'now'>) {}

  /** How long until a new process may start; 0 when it may now. */
  waitMs(): number {
    return Math.max(0, this.notBefore - this.time.now());
  }

  /** The process started at `startedAt` failed: returns how long the next one must wait. */
  failed(startedAt: number): number {
    const now = this.time.now();
    this.failures = now - startedAt < QUICK_DEATH_MS ? this.failures + 1 : 1;
    const waitMs = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** (this.failures - 1));
    this.notBefore = now + waitMs;
    return waitMs;
  }

  /** The process is working: the next failure waits the least again. */
  working(): void {
    this.failures = 0;
  }
}
