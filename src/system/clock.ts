import { asyncScheduler, type SchedulerLike } from 'rxjs';

/** Time as hark's timed parts see it: a monotonic `now` in ms, and a scheduler for delays. Tests pass virtual ones. */
export interface Clock {
  now(): number;
  scheduler: SchedulerLike;
}

export const realClock: Clock = { now: () => performance.now(), scheduler: asyncScheduler };
