import { describe, it } from 'vitest';
import { map } from 'rxjs';
import { playSentences } from '../../../src/pipeline/play-sentences.js';
import { FakePlayer, pcm } from '../../helpers/fakes.js';
import { testScheduler } from '../../helpers/marbles.js';

describe('playSentences', () => {
  it("writes each sentence's audio as it arrives and takes the next when the queue runs low", () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      // 1 kHz: one sample per millisecond (per marble frame).
      const player = new FakePlayer(1000, () => scheduler.now());
      const chunk = pcm(10, 1000);
      const a = cold('-x-y|', { x: chunk, y: chunk });
      const b = cold('x|', { x: chunk });
      const sentences = hot('(ab)', {
        a: { item: { index: 0, text: 'One.' }, output: a },
        b: { item: { index: 1, text: 'Two.' }, output: b },
      });
      const placements = sentences.pipe(
        playSentences(player, 5),
        map((p) => `${p.sentence.index}:${p.startSample}-${p.endSample}${p.final ? 'F' : ''}`),
      );
      // a: written at 1 and 3, done at 4 with 20 ms written and 3 played; b waits until 5 ms are left (frame 16).
      expectObservable(placements).toBe('-x-yz-----------vw', {
        x: '0:0-10',
        y: '0:0-20',
        z: '0:0-20F',
        v: '1:20-30',
        w: '1:20-30F',
      });
    });
  });

  it('unsubscribes the sentence audio when cancelled', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const player = new FakePlayer(1000, () => scheduler.now());
      const a = cold('-x-----y|', { x: pcm(10, 1000), y: pcm(10, 1000) });
      const sentences = hot('a', { a: { item: { index: 0, text: 'One.' }, output: a } });
      expectObservable(
        sentences.pipe(
          playSentences(player, 5),
          map(() => 'p'),
        ),
        '^---!',
      ).toBe('-p');
      expectSubscriptions(a.subscriptions).toBe('^---!');
    });
  });
});
