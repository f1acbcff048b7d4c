import { describe, expect, it } from 'vitest';
import { heardText } from '../../../src/speak/heard.js';
import { ConversationHistory, INTERRUPTED_MARK } from '../../../src/dialog/history.js';

const sentences = [
  { text: 'The tallest mountain is Everest.', startSample: 0, endSample: 1000 },
  { text: 'It is on the border of Nepal and China.', startSample: 1000, endSample: 2000 },
];

describe('heardText', () => {
  it('keeps whole sentences played and the heard words of the one cut off', () => {
    expect(heardText(sentences, 2000)).toEqual({
      text: 'The tallest mountain is Everest. It is on the border of Nepal and China.',
      complete: true,
    });
    expect(heardText(sentences, 1500)).toEqual({
      text: 'The tallest mountain is Everest. It is on the border',
      complete: false,
    });
    expect(heardText(sentences, 1010)).toEqual({ text: 'The tallest mountain is Everest.', complete: false });
    expect(heardText(sentences, 0)).toEqual({ text: '', complete: false });
  });

  it('cuts Chinese by characters', () => {
    expect(heardText([{ text: '今天天气很好', startSample: 0, endSample: 600 }], 300).text).toBe('今天天');
  });
});

describe('ConversationHistory', () => {
  it('keeps only what was heard of an interrupted reply, marked', () => {
    const history = new ConversationHistory({ maxTurns: 10, maxChars: 10_000 });
    history.record('How tall is Everest?', 'It is 8849 metres', true);
    expect(history.withUser('Thanks')).toEqual([
      { role: 'user', text: 'How tall is Everest?' },
      { role: 'assistant', text: `It is 8849 metres${INTERRUPTED_MARK}` },
      { role: 'user', text: 'Thanks' },
    ]);
  });

  it('drops the oldest exchanges beyond the turn and character limits', () => {
    const history = new ConversationHistory({ maxTurns: 2, maxChars: 10_000 });
    for (const n of [1, 2, 3]) history.record(`q${n}`, `a${n}`);
    expect(history.snapshot().map((t) => t.text)).toEqual(['q2', 'a2', 'q3', 'a3']);
    const short = new ConversationHistory({ maxTurns: 10, maxChars: 250 });
    short.record('x'.repeat(100), 'y'.repeat(100));
    short.record('z'.repeat(50), 'w'.repeat(50));
    expect(short.size).toBe(1);
  });
});
