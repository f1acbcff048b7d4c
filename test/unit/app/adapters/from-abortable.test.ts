import { describe, expect, it } from 'vitest';
import { firstValueFrom, lastValueFrom, take, toArray } from 'rxjs';
import { fromAbortable, fromAbortablePromise } from '../../../../src/app/adapters/from-abortable.js';

describe('fromAbortable', () => {
  it('unsubscribing before the stream ends aborts it (the connection is closed)', async () => {
    let seen: AbortSignal | undefined;
    const endless = fromAbortable(async function* (signal) {
      seen = signal;
      for (let i = 0; !signal.aborted; i++) yield await Promise.resolve(i);
    });
    expect(await firstValueFrom(endless.pipe(take(3), toArray()))).toEqual([0, 1, 2]);
    expect(seen?.aborted).toBe(true);
  });

  it('a stream that has ended is not aborted afterwards', async () => {
    let seen: AbortSignal | undefined;
    const done = fromAbortable(async function* (signal) {
      seen = signal;
      yield 'whole';
    });
    expect(await lastValueFrom(done)).toBe('whole');
    expect(seen?.aborted).toBe(false);
  });
});

describe('fromAbortablePromise', () => {
  it('unsubscribing before the answer aborts the call; once answered, taking the answer aborts nothing', async () => {
    let pending: AbortSignal | undefined;
    const slow = fromAbortablePromise(
      (signal) =>
        new Promise<string>((_, reject) => {
          pending = signal;
          signal.addEventListener('abort', () => reject(new Error('aborted')));
        }),
    );
    slow.subscribe().unsubscribe();
    expect(pending?.aborted).toBe(true);

    let answered: AbortSignal | undefined;
    const quick = fromAbortablePromise(async (signal) => {
      answered = signal;
      return 'text';
    });
    expect(await firstValueFrom(quick.pipe(take(1)))).toBe('text');
    expect(answered?.aborted).toBe(false);
  });
});
