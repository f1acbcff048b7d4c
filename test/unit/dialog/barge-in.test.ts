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
  it('a new stretch of speech after a resumed pause can pause and interrupt again, on its own speech', () => {
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 200 });
    expect(judge.push(speech(1, 32), 'speaking')).toBe('paused');
    expect(judge.push(silence(1, 224), 'speaking')).toBe('resumed');
    // The user goes on inside the same utterance: a fresh pause, then the interruption once
    // 300 ms were heard after the resume (the 32 ms before it do not count).
    expect(judge.push(speech(1, 64), 'speaking')).toBe('paused');
    expect(judge.push(speech(1, 320), 'speaking')).toBeUndefined();
    expect(judge.push(speech(1, 332), 'speaking')).toBe('confirmed');
    expect(judge.push(speech(1, 364), 'speaking')).toBeUndefined();
  });

  it("after a resume, speech heard before it never adds up to an interruption (hark's own echo returning)", () => {
    // The residual of hark's voice paused the reply for 256 ms of "speech", then fell silent: resumed.
    // When the echo returns inside the same stretch, one more frame must not confirm it.
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 300 });
    for (let ms = 32; ms <= 256; ms += 32) judge.push(speech(7, ms), 'speaking');
    expect(judge.push(silence(7, 320), 'speaking')).toBe('resumed');
    expect(judge.push(speech(7, 288), 'speaking')).toBe('paused');
    expect(judge.push(speech(7, 320), 'speaking')).toBeUndefined();
    expect(judge.push(silence(7, 320), 'speaking')).toBe('resumed');
  });

  it('a speaker who was already talking when hark started is an interruption at once', () => {
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 200 });
    expect(judge.push(speech(4, 320), 'listening')).toBeUndefined();
    expect(judge.push(speech(4, 352), 'thinking')).toBe('confirmed');
  });
});
