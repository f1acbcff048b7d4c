import { describe, it } from 'vitest';
import { map } from 'rxjs';
import { toFrames } from '../../../src/pipeline/to-frames.js';
import { testScheduler } from '../../helpers/marbles.js';

describe('toFrames', () => {
  it('regroups chunks of any size into whole frames, and unsubscribes upstream when cancelled', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const chunk = (bytes: number) => Buffer.alloc(bytes, 1);
      const source = hot('-a------b------c', { a: chunk(7), b: chunk(9), c: chunk(24) });
      const frames = source.pipe(
        toFrames(4, 1000, () => 0),
        map((f) => f.samples.length),
      );
      // 7 bytes: none yet; +9 = 16 bytes = two 4-sample frames; +24 = 40 bytes: five frames in all.
      expectObservable(frames, '^-------------------!').toBe('--------(ab)---(cde)', { a: 4, b: 4, c: 4, d: 4, e: 4 });
      expectSubscriptions(source.subscriptions).toBe('^-------------------!');
    });
  });
});
