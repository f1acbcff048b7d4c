import { describe, expect, it } from 'vitest';
import { heardText } from '../../../src/speak/heard.js';

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
