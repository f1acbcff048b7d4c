import { describe, expect, it } from 'vitest';
import { immediateScheduler } from '../../../src/system/immediate-scheduler.js';

const checkPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('immediateScheduler', () => {
  it('runs work after the promise jobs queued before it, and runs cancelled work never', async () => {
    const order: string[] = [];
    immediateScheduler.schedule(() => order.push('scheduled'));
    const cancelled = immediateScheduler.schedule(() => order.push('cancelled'));
    void Promise.resolve().then(() => order.push('promise job'));
    cancelled.unsubscribe();
    expect(order).toEqual([]);
    await checkPhase();
    expect(order).toEqual(['promise job', 'scheduled']);
  });

  it('lets work schedule itself again, with its state', async () => {
    const states: number[] = [];
    immediateScheduler.schedule<number>(function (state = 0) {
      states.push(state);
      if (state < 2) this.schedule(state + 1);
    });
    for (let i = 0; i < 3; i++) await checkPhase();
    expect(states).toEqual([0, 1, 2]);
  });
});
