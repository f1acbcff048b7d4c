import { Observable, type ObservableNotification, type OperatorFunction, type Subscriber } from 'rxjs';
import type { AfterIo } from './ports.js';

/**
 * Subscribes to `request` at once, and to the stages that read it (`rest`) only `afterIo`, what
 * `request` sent in between first. undici writes a request on a kept-alive connection only once
 * the event loop has checked the socket for a close from the server, so work done right after
 * asking would go before the request: a turn's other stages take longer to build than its reply
 * request takes to send. Unsubscribing before then cancels both.
 */
export function requestFirst<T, R>(
  request: Observable<T>,
  rest: OperatorFunction<T, R>,
  afterIo: AfterIo,
): Observable<R> {
  return new Observable<R>((subscriber) => {
    const waiting: ObservableNotification<T>[] = [];
    let reader: Subscriber<T> | undefined;
    const deliver = (notification: ObservableNotification<T>): void => {
      if (reader) forward(notification, reader);
      else waiting.push(notification);
    };
    const requested = request.subscribe({
      next: (value) => deliver({ kind: 'N', value }),
      error: (error: unknown) => deliver({ kind: 'E', error }),
      complete: () => deliver({ kind: 'C' }),
    });
    const events = new Observable<T>((to) => {
      reader = to;
      for (const notification of waiting.splice(0)) forward(notification, to);
    });
    const cancel = afterIo(() => {
      // Built outside the turn's own subscription: a stage that fails to build fails the turn, not hark.
      try {
        rest(events).subscribe(subscriber);
      } catch (error) {
        subscriber.error(error);
      }
    });
    return () => {
      cancel();
      requested.unsubscribe();
    };
  });
}

function forward<T>(notification: ObservableNotification<T>, to: Subscriber<T>): void {
  if (notification.kind === 'N') to.next(notification.value);
  else if (notification.kind === 'E') to.error(notification.error);
  else to.complete();
}
