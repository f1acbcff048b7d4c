import { Observable, ReplaySubject, defer, type OperatorFunction, type Subscription } from 'rxjs';

/** An item with its output, which starts flowing (from a buffer if prefetched) when subscribed. */
export interface Prefetched<T, R> {
  item: T;
  output: Observable<R>;
}

/**
 * Starts `project(item)` for the item being consumed and up to `lookahead` items after it,
 * so the next sentence is synthesized while this one plays, but a long reply is not
 * synthesized all at once (wasted if the user interrupts). Order is the input's. Each
 * output replays what arrived before it was subscribed. Unsubscribing cancels every
 * request in flight; completion waits until every item's output is complete, since
 * completing would otherwise tear down requests still under way.
 */
export function prefetchAhead<T, R>(
  project: (item: T) => Observable<R>,
  lookahead: number,
): OperatorFunction<T, Prefetched<T, R>> {
  return (source) =>
    new Observable<Prefetched<T, R>>((subscriber) => {
      const outputs: ReplaySubject<R>[] = [];
      const started: Subscription[] = [];
      const items: T[] = [];
      let consuming = -1;
      let finished = 0;
      let sourceDone = false;

      const completeWhenAllFinished = (): void => {
        if (sourceDone && finished === items.length) subscriber.complete();
      };
      const start = (index: number): void => {
        const item = items[index];
        const output = outputs[index];
        if (item === undefined || output === undefined || started[index]) return;
        started[index] = project(item).subscribe({
          next: (value) => output.next(value),
          error: (error: unknown) => {
            output.error(error);
            finished++;
            completeWhenAllFinished();
          },
          complete: () => {
            output.complete();
            finished++;
            completeWhenAllFinished();
          },
        });
      };
      const startWindow = (): void => {
        for (let i = Math.max(0, consuming); i <= consuming + lookahead && i < items.length; i++) start(i);
      };

      const subscription = source.subscribe({
        next: (item) => {
          const index = items.length;
          items.push(item);
          outputs.push(new ReplaySubject<R>());
          // The request leaves first; what consumes the item (queues, the player) is set up after it.
          startWindow();
          subscriber.next({
            item,
            output: defer(() => {
              consuming = Math.max(consuming, index);
              startWindow();
              start(index);
              return outputs[index] as ReplaySubject<R>;
            }),
          });
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          completeWhenAllFinished();
        },
      });
      return () => {
        subscription.unsubscribe();
        for (const s of started) s?.unsubscribe();
      };
    });
}
