import { describe, expect, it } from 'vitest';
import { soundsLikeOwnVoice } from '../../../src/dialog/own-voice.js';

const SAID = ['The tallest mountain on Earth is Mount Everest.', 'It rises 8849 metres above the sea.'];

describe('soundsLikeOwnVoice', () => {
  it('knows hark heard back, even misheard in places', () => {
    expect(soundsLikeOwnVoice('mount everest it rises', SAID)).toBe(true);
    expect(soundsLikeOwnVoice('The tallest mountain on earth is mount Everest', SAID)).toBe(true);
    expect(soundsLikeOwnVoice('tallest mountain in Earth as Mount Everest', SAID)).toBe(true);
  });

  it('does not take the user for hark', () => {
    expect(soundsLikeOwnVoice('What about the ocean?', SAID)).toBe(false);
    expect(soundsLikeOwnVoice('is it higher than K2', SAID)).toBe(false);
    expect(soundsLikeOwnVoice('anything', [])).toBe(false);
  });

  it('works for Chinese, character by character', () => {
    expect(soundsLikeOwnVoice('珠穆朗玛峰是世界最高', ['世界上最高的山是珠穆朗玛峰。'])).toBe(false);
    expect(soundsLikeOwnVoice('最高的山是珠穆朗玛峰', ['世界上最高的山是珠穆朗玛峰。'])).toBe(true);
  });
});
