import { describe, expect, it } from 'vitest';
import { SpeakableFilter } from '../../../src/speak/speakable.js';

function whole(text: string): string {
  const filter = new SpeakableFilter();
  return filter.push(text) + filter.flush();
}

function streamed(text: string, step: number): string {
  const filter = new SpeakableFilter();
  let out = '';
  const chars = [...text];
  for (let i = 0; i < chars.length; i += step) out += filter.push(chars.slice(i, i + step).join(''));
  return out + filter.flush();
}

describe('SpeakableFilter', () => {
  it.each([
    ['emphasis', 'This is **very** _really_ ~~not~~ important.', 'This is very really not important.'],
    ['headings end as sentences', '## Getting started\nFirst, relax.', 'Getting started. First, relax.'],
    [
      'bulleted and numbered lists',
      'You need:\n- flour\n- water\n1. Mix them\n2) Bake',
      'You need: flour. water. Mix them. Bake.',
    ],
    [
      'links and images keep their text',
      'See [the guide](https://example.com/guide) and ![a cat](cat.png).',
      'See the guide and a cat.',
    ],
    ['raw URLs are never read', 'Visit https://example.com/a?b=c or www.example.org today.', 'Visit or today.'],
    ['emoji are dropped', 'Great job 🎉👍🏽! Flags 🇫🇷 too ❤️.', 'Great job! Flags too.'],
    ['inline code keeps its text', 'Run `npm test` now.', 'Run npm test now.'],
    ['fenced code keeps its text, not its fences', 'Try:\n```js\nconst x = 1;\n```\nDone.', 'Try: const x = 1; Done.'],
    ['tables read as rows', '| City | Height |\n|---|---:|\n| La Paz | 3640 m |\n', 'City, Height. La Paz, 3640 m.'],
    ['quotes', '> To be or not to be.\nThat is it.', 'To be or not to be. That is it.'],
    ['HTML tags and entities', 'Salt &amp; pepper<br/>are <b>fine</b>.', 'Salt & pepper are fine.'],
    ['horizontal rules vanish', 'One.\n\n---\n\nTwo.', 'One. Two.'],
    ['Chinese text passes through', '你好！今天**天气**很好。', '你好！今天天气很好。'],
    ['decimals, times and snake_case survive', 'It is 3.14 at 10:30 in my_file.', 'It is 3.14 at 10:30 in my_file.'],
  ])('%s', (_name, input, expected) => {
    expect(whole(input)).toBe(expected);
  });

  it('gives the same text however the stream is cut', () => {
    const reply =
      '# Plan\nHere is **the plan** 🙂, see [docs](https://x.io/a_b) and https://y.io.\n- step _one_\n- step two\n\n| a | b |\n|--|--|\n| 1 | 2 |\nDone & dusted &amp; more.';
    const expected = whole(reply);
    for (const step of [1, 2, 3, 5, 7, 11]) expect(streamed(reply, step), `chunks of ${step}`).toBe(expected);
  });

  it('holds back only while a construct is undecided', () => {
    const filter = new SpeakableFilter();
    expect(filter.push('Hello there, ')).toBe('Hello there,');
    expect(filter.push('see [the')).toBe(' see');
    expect(filter.push(' guide](https://x.y) now')).toBe(' the guide now');
    expect(filter.push(' and https://exa')).toBe(' and');
    expect(filter.push('mple.com then.')).toBe(' then.');
  });
});
