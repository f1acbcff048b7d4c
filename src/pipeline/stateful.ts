import { Observable, type OperatorFunction } from 'rxjs';

/** A stateful step: items in, items out, and perhaps a last few when the input ends. */
export interface Step<I, O> {
  push(input: I): Iterable<O>;
  flush?(): Iterable<O>;
}

/**
 * The operator for a stateful step, made fresh for each subscription: what the push-and-flush
 * stages (frames, segmenter, speakable text, sentences) are built on. Unsubscribing drops the step.
 */
export function stateful<I, O>(create: () => Step<I, O>): OperatorFunction<I, O> {
  return (source) =>
    new Observable<O>((subscriber) => {
      const step = create();
      return source.subscribe({
        next: (input) => {
          for (const output of step.push(input)) subscriber.next(output);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          for (const output of step.flush?.() ?? []) subscriber.next(output);
          subscriber.complete();
        },
      });
    });
}
