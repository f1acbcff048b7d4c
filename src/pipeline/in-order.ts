import { Observable, type OperatorFunction } from 'rxjs';

/**
 * Results, some known at once and some promised → the values in the order they were asked for,
 * each as soon as it and all before it are known. What `concatMap(from)` does, without an inner
 * subscription per item: this runs once a frame on the listening path, where a small board has
 * little to spare.
 */
export function inOrder<T>(): OperatorFunction<T | Promise<T>, T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      const waiting: { known: boolean; value?: T }[] = [];
      let ended = false;
      const flush = (): void => {
        while (waiting[0]?.known) subscriber.next(waiting.shift()?.value as T);
        if (ended && waiting.length === 0) subscriber.complete();
      };
      return source.subscribe({
        next: (result) => {
          if (!(result instanceof Promise)) {
            if (waiting.length === 0) subscriber.next(result);
            else waiting.push({ known: true, value: result });
            return;
          }
          const slot: { known: boolean; value?: T } = { known: false };
          waiting.push(slot);
          result.then(
            (value) => {
              slot.known = true;
              slot.value = value;
              flush();
            },
            (error: unknown) => subscriber.error(error),
          );
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          ended = true;
          flush();
        },
      });
    });
}
