import { describe, expect, it } from 'vitest';
import { judgeTurnEnd } from '../../../src/dialog/turn-end.js';

describe('judgeTurnEnd', () => {
  it.each([
    ['What time is it?', 'complete'],
    ['Set a timer for ten minutes.', 'complete'],
    ['Turn off the kitchen lights!', 'complete'],
    ['Add eggs and', 'incomplete'],
    ['Add eggs and...', 'incomplete'],
    ['I want to buy eggs, um', 'incomplete'],
    ['So the', 'incomplete'],
    ['What about', 'incomplete'],
    ['And what about the weather?', 'complete'],
    ['Tell me about', 'incomplete'],
    ['Remind me to call', 'unsure'],
    ['The meeting is at three,', 'incomplete'],
    ['', 'unsure'],
  ])('English: %j is %s', (text, expected) => {
    expect(judgeTurnEnd(text)).toBe(expected);
  });

  it.each([
    ['现在几点了？', 'complete'],
    ['明天会下雨吗', 'complete'],
    ['帮我买鸡蛋和', 'incomplete'],
    ['我想问一下那个', 'incomplete'],
    ['如果明天下雨，', 'incomplete'],
    ['打开客厅的灯', 'unsure'],
  ])('Chinese: %j is %s', (text, expected) => {
    expect(judgeTurnEnd(text)).toBe(expected);
  });
});
