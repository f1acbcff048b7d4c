import { Observable } from 'rxjs';

/**
 * An Observable over an async iterable made for one AbortSignal: unsubscribing aborts it,
 * which for an HTTP stream closes the connection. Cancellation is unsubscription.
 */
export function fromAbortable<T>(open: (signal: AbortSignal) => AsyncIterable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    void (async () => {
      try {
        for await (const value of open(controller.signal)) {
          if (subscriber.closed) return;
          subscriber.next(value);
        }
        subscriber.complete();
      } catch (error) {
        if (!controller.signal.aborted) subscriber.error(error);
      }
    })();
    return () => controller.abort();
  });
}

/** The same for a single promise. */
export function fromAbortablePromise<T>(run: (signal: AbortSignal) => Promise<T>): Observable<T> {
  return fromAbortable(async function* (signal) {
    yield await run(signal);
  });
}
