import { Observable, type OperatorFunction } from 'rxjs';

/** One result asked for: known (a value or a failure) or still promised. */
interface Slot<T> {
  settled: boolean;
  value?: T;
  failure?: { error: unknown };
}

/**
 * Results, some known at once and some promised → the values in the order they were asked for,
 * each as soon as it and all before it are known; a promise that fails ends the stream once the
 * values before it are out. What `concatMap(from)` does, without an inner subscription per item:
 * this runs once a frame on the listening path, where a small board has little to spare.
 */
export function inOrder<T>(): OperatorFunction<T | Promise<T>, T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const waiting: Slot<T>[] = [];
      let ended = false;
      const flush = (): void => {
        while (waiting[0]?.settled) {
          const slot = waiting.shift() as Slot<T>;
          if (slot.failure) return subscriber.error(slot.failure.error);
          subscriber.next(slot.value as T);
        }
        if (ended && waiting.length === 0) subscriber.complete();
      };
      const subscription = source.subscribe({
        next: (result) => {
          if (!(result instanceof Promise)) {
            if (waiting.length === 0) subscriber.next(result);
            else waiting.push({ settled: true, value: result });
            return;
          }
          const slot: Slot<T> = { settled: false };
          waiting.push(slot);
          result.then(
            (value) => {
              slot.value = value;
              slot.settled = true;
              flush();
            },
            (error: unknown) => {
              slot.failure = { error };
              slot.settled = true;
              flush();
            },
          );
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          ended = true;
          flush();
        },
      });
      return () => {
        subscription.unsubscribe();
        // What waits behind a promise still pending is let go now, not when that promise settles.
        waiting.length = 0;
      };
    });
}
