import { describe, expect, it } from 'vitest';
import { editDistance, isStopPhrase, matchWakePhrase } from '../../../src/listen/wake-phrase.js';

const PHRASES = ['hey hark', 'ok hark'];

describe('matchWakePhrase', () => {
  it.each([
    ['Hey hark, what time is it?', 'what time is it?'],
    ['hey, Hark! What time is it?', 'What time is it?'],
    ['Heyhark what time is it', 'what time is it'],
    ['Hey Mark, what time is it?', 'what time is it?'],
    ['Hay hark. Turn on the lights.', 'Turn on the lights.'],
    ['Okay hark, play music', 'play music'],
    ['HEY HARK', ''],
  ])('%s', (transcript, rest) => {
    expect(matchWakePhrase(transcript, PHRASES)?.rest).toBe(rest);
  });

  it.each(['What time is it?', 'Hey Harkness, the movie was good', 'Heather, what time is it?', 'hello there hark'])(
    'does not wake on "%s"',
    (transcript) => {
      expect(matchWakePhrase(transcript, PHRASES)).toBeUndefined();
    },
  );

  it('works for a Chinese wake phrase', () => {
    expect(matchWakePhrase('你好小哈，今天天气怎么样？', ['你好小哈'])?.rest).toBe('今天天气怎么样？');
  });
});

describe('isStopPhrase', () => {
  it.each([
    ['Stop.', true],
    ['stop please', true],
    ['OK, stop!', true],
    ['Cancel.', true],
    ['Never mind.', true],
    ['Be quiet, hark.', true],
    ['Stop the music in the kitchen', false],
    ['Where is the bus stop?', false],
  ])('"%s" is a stop phrase: %s', (transcript, stop) => {
    expect(isStopPhrase(transcript, ['stop', 'cancel', 'be quiet', 'never mind'])).toBe(stop);
  });

  it('editDistance counts single edits', () => {
    expect(editDistance('heyhark', 'heymark')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
