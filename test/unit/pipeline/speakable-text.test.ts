import { describe, it } from 'vitest';
import { map } from 'rxjs';
import type { ReplyEvent } from '../../../src/contract/reply.js';
import { speakableText } from '../../../src/pipeline/speakable-text.js';
import { splitSentences } from '../../../src/pipeline/split-sentences.js';
import { testScheduler } from '../../helpers/marbles.js';

const text = (t: string): ReplyEvent => ({ type: 'text', text: t });

describe('speakableText + splitSentences', () => {
  it('speaks sentences as soon as they are complete, without markdown, links, emoji or reasoning', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const reply = hot<ReplyEvent>('-a-r-b-(c|)', {
        a: text('**Hello** there, '),
        r: { type: 'reasoning', text: 'The user greets me. I should greet back.' },
        b: text('friend. Next [is a link](http://x.y/z) and '),
        c: text('`code` here. 🙂'),
      });
      const sentences = reply.pipe(
        speakableText(),
        splitSentences(),
        map((s) => `${s.index}:${s.text}`),
      );
      expectObservable(sentences).toBe('-----a-(b|)', {
        a: '0:Hello there, friend.',
        b: '1:Next is a link and code here.',
      });
    });
  });

  it('unsubscribes the reply upstream when cancelled', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const reply = hot('-a-b-c', { a: text('One. '), b: text('Two sentences here. '), c: text('Three.') });
      expectObservable(reply.pipe(speakableText(), splitSentences()), '^--!').toBe('-');
      expectSubscriptions(reply.subscriptions).toBe('^--!');
    });
  });
});
