import { describe, expect, it } from 'vitest';
import { BargeInJudge } from '../../../src/dialog/barge-in.js';
import type { SegmenterEvent } from '../../../src/listen/speech-events.js';

const speech = (id: number, durationMs: number): SegmenterEvent => ({
  type: 'speech',
  id,
  onsetMs: 0,
  onsetAt: 0,
  durationMs,
  atMs: 0,
});
const silence = (id: number, silentMs: number): SegmenterEvent => ({ type: 'silence', id, silentMs, atMs: 0 });

describe('BargeInJudge', () => {
  it('a new stretch of speech after a resumed pause can pause and interrupt again', () => {
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 200 });
    expect(judge.push(speech(1, 32), 'speaking')).toBe('paused');
    expect(judge.push(silence(1, 224), 'speaking')).toBe('resumed');
    // The user goes on inside the same utterance: a fresh pause, then the interruption.
    expect(judge.push(speech(1, 64), 'speaking')).toBe('paused');
    expect(judge.push(speech(1, 320), 'speaking')).toBe('confirmed');
    expect(judge.push(speech(1, 352), 'speaking')).toBeUndefined();
  });

  it('a speaker who was already talking when hark started is an interruption at once', () => {
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 200 });
    expect(judge.push(speech(4, 320), 'listening')).toBeUndefined();
    expect(judge.push(speech(4, 352), 'thinking')).toBe('confirmed');
  });
});
