import { Observable, ReplaySubject, type OperatorFunction } from 'rxjs';
import type { AfterIo } from './ports.js';

/**
 * Subscribes to `request` at once, and to the stages that read it (`rest`) only `afterIo`, what
 * `request` sent in between first. undici writes a request on a kept-alive connection only once
 * the event loop has checked the socket for a close from the server, so work done right after
 * asking would go before the request: a turn's other stages take longer to build than its reply
 * request takes to send. Unsubscribing before then cancels both. (What `request` sends is kept
 * for the turn's life: one reply's events.)
 */
export function requestFirst<T, R>(
  request: Observable<T>,
  rest: OperatorFunction<T, R>,
  afterIo: AfterIo,
): Observable<R> {
  return new Observable<R>((subscriber) => {
    const heard = new ReplaySubject<T>();
    const requested = request.subscribe(heard);
    const cancel = afterIo(() => {
      // Built outside the turn's own subscription: a stage that fails to build fails the turn, not hark.
      try {
        rest(heard).subscribe(subscriber);
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
