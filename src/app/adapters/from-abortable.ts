import { Observable } from 'rxjs';

/**
 * An Observable over an async iterable made for one AbortSignal: unsubscribing before it ends
 * aborts it, which for an HTTP stream closes the connection. Cancellation is unsubscription.
 * (One that has ended is not aborted: there is nothing left to close, and an abort costs an
 * exception and its listeners on every turn's critical path.)
 */
export function fromAbortable<T>(open: (signal: AbortSignal) => AsyncIterable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    let ended = false;
    void (async () => {
      try {
        for await (const value of open(controller.signal)) {
          if (subscriber.closed) return;
          subscriber.next(value);
        }
        ended = true;
        subscriber.complete();
      } catch (error) {
        ended = true;
        if (!controller.signal.aborted) subscriber.error(error);
      }
    })();
    return () => {
      if (!ended) controller.abort();
    };
  });
}

/** The same for a single promise: once it has settled there is nothing to abort. */
export function fromAbortablePromise<T>(run: (signal: AbortSignal) => Promise<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const controller = new AbortController();
    let settled = false;
    run(controller.signal).then(
      (value) => {
        settled = true;
        subscriber.next(value);
        subscriber.complete();
      },
      (error: unknown) => {
        settled = true;
        if (!controller.signal.aborted) subscriber.error(error);
      },
    );
    return () => {
      if (!settled) controller.abort();
    };
  });
}
