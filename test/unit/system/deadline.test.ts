import { describe, expect, it } from 'vitest';
import { withinDeadline } from '../../../src/system/deadline.js';
import { later } from '../../helpers/later.js';

describe('withinDeadline', () => {
  it('gives what the work delivers in time; the deadline passing afterwards changes nothing', async () => {
    const work = later<string>();
    const deadline = new AbortController();
    const lateOnes: string[] = [];
    const result = withinDeadline(work.promise, deadline.signal, (value) => lateOnes.push(value));
    work.resolve('model');
    await expect(result).resolves.toBe('model');
    deadline.abort(new Error('not loaded within 60 s'));
    await Promise.resolve();
    expect(lateOnes).toEqual([]);
  });

  it("fails with the deadline's reason when it passes first, and hands what comes later to be closed", async () => {
    const work = later<string>();
    const deadline = new AbortController();
    const lateOnes: string[] = [];
    const result = withinDeadline(work.promise, deadline.signal, (value) => lateOnes.push(value));
    deadline.abort(new Error('not loaded within 60 s'));
    await expect(result).rejects.toThrow('not loaded within 60 s');
    work.resolve('model');
    await work.promise;
    await Promise.resolve();
    expect(lateOnes).toEqual(['model']);
  });

  it('a deadline already passed fails at once; the work failing in time fails with its own error', async () => {
    const passed = new AbortController();
    passed.abort(new Error('too late'));
    await expect(withinDeadline(new Promise<never>(() => undefined), passed.signal, () => undefined)).rejects.toThrow(
      'too late',
    );
    const work = later<string>();
    const result = withinDeadline(work.promise, new AbortController().signal, () => undefined);
    work.reject(new Error('no such model'));
    await expect(result).rejects.toThrow('no such model');
  });
});
