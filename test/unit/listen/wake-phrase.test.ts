import { describe, expect, it } from 'vitest';
import { editDistance, isStopPhrase, matchWakePhrase } from '../../../src/listen/wake-phrase.js';
import { WakePhraseGate } from '../../../src/pipeline/turn-gate.js';
import type { UserTurn } from '../../../src/pipeline/user-turns.js';
import { createMemoryLogger } from '../../../src/system/logger.js';

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

describe('WakePhraseGate', () => {
  const turn = (text: string): UserTurn => ({
    utteranceId: 1,
    text,
    parts: 1,
    endOfSpeechAt: 0,
    transcriptionRequestAt: 0,
    transcriptAt: 0,
    audioMs: 1000,
  });
  const listen = { wakePhrases: PHRASES, followUpMs: 8000, stopPhrases: ['stop', 'cancel'] };

  it('needs the wake phrase, takes it off, and needs none during the follow-up window', () => {
    let now = 0;
    const gate = new WakePhraseGate(listen, createMemoryLogger(), () => now);
    expect(gate.admit(turn('What time is it?'), 'listening')).toMatchObject({ kind: 'ignore' });
    expect(gate.admit(turn('Hey hark, what time is it?'), 'listening')).toMatchObject({
      kind: 'turn',
      turn: { text: 'what time is it?' },
    });
    gate.replied();
    now = 7000;
    expect(gate.admit(turn('And the date?'), 'listening')).toMatchObject({
      kind: 'turn',
      turn: { text: 'And the date?' },
    });
    now = 16_000;
    expect(gate.admit(turn('And tomorrow?'), 'listening')).toMatchObject({ kind: 'ignore' });
  });

  it('acknowledges the wake phrase alone and opens the window for the question', () => {
    let now = 0;
    const gate = new WakePhraseGate(listen, createMemoryLogger(), () => now);
    expect(gate.admit(turn('Hey hark.'), 'listening')).toEqual({ kind: 'wake' });
    now = 3000;
    expect(gate.admit(turn('Set a timer.'), 'listening')).toMatchObject({ kind: 'turn' });
  });

  it('stops on "stop" while speaking or right after being talked over, but takes it as a turn otherwise', () => {
    let now = 0;
    const gate = new WakePhraseGate({ ...listen, wakePhrases: [] }, createMemoryLogger(), () => now);
    expect(gate.admit(turn('Stop.'), 'speaking')).toEqual({ kind: 'stop' });
    gate.interrupted();
    now = 1500;
    expect(gate.admit(turn('stop please'), 'listening')).toEqual({ kind: 'stop' });
    now = 60_000;
    expect(gate.admit(turn('Stop.'), 'listening')).toMatchObject({ kind: 'turn' });
  });
});
