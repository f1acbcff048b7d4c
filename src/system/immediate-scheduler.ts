import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

type Work<T> = (this: SchedulerAction<T>, state?: T) => void;

class ImmediateAction<T> extends Subscription implements SchedulerAction<T> {
  private handle: { immediate: NodeJS.Immediate } | { timeout: NodeJS.Timeout } | undefined;

  constructor(private readonly work: Work<T>) {
    super();
    this.add(() => this.cancel());
  }

  schedule(state?: T, delay = 0): Subscription {
    if (this.closed) return this;
    this.cancel();
    const run = (): void => {
      this.handle = undefined;
      this.work.call(this, state);
    };
    this.handle = delay > 0 ? { timeout: setTimeout(run, delay) } : { immediate: setImmediate(run) };
    return this;
  }

  private cancel(): void {
    if (this.handle && 'immediate' in this.handle) clearImmediate(this.handle.immediate);
    else if (this.handle) clearTimeout(this.handle.timeout);
    this.handle = undefined;
  }
}

/**
 * Work that runs at the event loop's next check phase (setImmediate): after every promise job
 * queued before it and after the I/O already waiting, without the millisecond a zero timer
 * costs. Work given a delay waits on a timer.
 */
export const immediateScheduler: SchedulerLike = {
  now: () => performance.now(),
  schedule<T>(work: Work<T>, delay?: number, state?: T): Subscription {
    return new ImmediateAction(work).schedule(state, delay);
  },
};
