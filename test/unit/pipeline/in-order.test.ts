import { Subject, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { inOrder } from '../../../src/pipeline/in-order.js';
import { later } from '../../helpers/later.js';

describe('inOrder: results in the order they were asked for', () => {
  it('holds a result known early until every one asked for before it is known', async () => {
    const asked = new Subject<number | Promise<number>>();
    const seen: number[] = [];
    const done = lastValueFrom(asked.pipe(inOrder(), toArray()));
    asked.pipe(inOrder()).subscribe((value) => seen.push(value));
    const first = later<number>();
    const second = later<number>();
    asked.next(1);
    asked.next(first.promise);
    asked.next(second.promise);
    asked.next(4);
    expect(seen).toEqual([1]);
    second.resolve(3);
    await second.promise;
    expect(seen).toEqual([1]);
    first.resolve(2);
    await first.promise;
    await Promise.resolve();
    expect(seen).toEqual([1, 2, 3, 4]);
    asked.complete();
    expect(await done).toEqual([1, 2, 3, 4]);
  });

  it('ends only once the last promised result is out', async () => {
    const asked = new Subject<number | Promise<number>>();
    let ended = false;
    const last = later<number>();
    const done = lastValueFrom(asked.pipe(inOrder(), toArray()));
    asked.pipe(inOrder()).subscribe({ complete: () => (ended = true) });
    asked.next(last.promise);
    asked.complete();
    expect(ended).toBe(false);
    last.resolve(7);
    expect(await done).toEqual([7]);
    expect(ended).toBe(true);
  });

  it('fails with a promise that fails, once the values asked for before it are out', async () => {
    const asked = new Subject<number | Promise<number>>();
    const slow = later<number>();
    const broken = later<number>();
    const seen: number[] = [];
    const done = lastValueFrom(asked.pipe(inOrder(), toArray()));
    asked.pipe(inOrder()).subscribe({ next: (value) => seen.push(value), error: () => undefined });
    asked.next(slow.promise);
    asked.next(broken.promise);
    broken.reject(new Error('the model is gone'));
    await broken.promise.catch(() => undefined);
    expect(seen).toEqual([]);
    slow.resolve(1);
    await expect(done).rejects.toThrow('the model is gone');
    expect(seen).toEqual([1]);
  });

  it('emits nothing once unsubscribed, and lets go of its source', async () => {
    const asked = new Subject<number | Promise<number>>();
    const pending = later<number>();
    const seen: number[] = [];
    const subscription = asked.pipe(inOrder()).subscribe((value) => seen.push(value));
    asked.next(pending.promise);
    asked.next(2);
    subscription.unsubscribe();
    expect(asked.observed).toBe(false);
    pending.resolve(1);
    await pending.promise;
    await Promise.resolve();
    expect(seen).toEqual([]);
  });
});
