import { share, type MonoTypeOperatorFunction } from 'rxjs';

/**
 * One subscription to a stage, however many read it: one that subscribes after the stage is over
 * (a turn still playing when a file's input has ended) is told it is over, instead of starting
 * the stage, and the input, all over again.
 */
export const shareWithoutReset = <T>(): MonoTypeOperatorFunction<T> =>
  share<T>({ resetOnComplete: false, resetOnError: false });
