import { describe, expect, it } from 'vitest';
import { BargeInJudge } from '../../../src/dialog/barge-in.js';
import type { SegmenterEvent } from '../../../src/listen/speech-events.js';

/**
 * A voiced frame ending at stream time `atMs`, with `durationMs` voiced so far (and `doubtfulMs`
 * that may be hark's echo; `clearMs` of the voiced time scored as speech starts, all of it unless told).
 */
const speech = (id: number, durationMs: number, atMs = 0, doubtfulMs = 0, clearMs = durationMs): SegmenterEvent => ({
  type: 'speech',
  id,
  onsetMs: 0,
  onsetAt: 0,
  durationMs,
  doubtfulMs,
  clearMs,
  atMs,
});
/**
 * Frames of stretch `id` ending every 32 ms from `fromMs` to `toMs`, doubtful (its voiced time stays
 * `voicedMs`, its doubtful time grows from `doubtfulFromMs`): none of them decides anything.
 */
function hearDoubtful(
  judge: BargeInJudge,
  id: number,
  voicedMs: number,
  fromMs: number,
  toMs: number,
  doubtfulFromMs: number,
) {
  for (let at = fromMs; at <= toMs; at += 32) {
    expect(judge.push(speech(id, voicedMs, at, doubtfulFromMs + at - fromMs), 'speaking')).toBeUndefined();
  }
}
const silence = (id: number, silentMs: number): SegmenterEvent => ({ type: 'silence', id, silentMs, atMs: 0 });
/** The end of stretch `id`: its utterance, sent to be transcribed. */
const ended = (id: number): SegmenterEvent => ({
  type: 'utterance',
  utterance: {
    id,
    part: 0,
    final: true,
    samples: new Int16Array(0),
    sampleRateHz: 16_000,
    onsetMs: 0,
    endMs: 0,
    onsetAt: 0,
    speechEndedAt: 0,
    overlapped: true,
  },
});

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

  it('speech long enough before the reply paused for it is confirmed only once it goes on confirmAfterPauseMs after the pause', () => {
    // Soft frames under the raised threshold counted for 288 ms before one crossed it: through a
    // real sound server, that was hark's own voice let through by a filter the echo path had
    // slipped away from, and it was confirmed 20 ms after the pause.
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 300, confirmAfterPauseMs: 250 });
    expect(judge.push(speech(8, 320, 2000), 'speaking')).toBe('paused');
    expect(judge.push(speech(8, 352, 2032), 'speaking')).toBeUndefined();
    expect(judge.push(speech(8, 384, 2064), 'speaking')).toBeUndefined();
    // hark's voice stopped reaching the microphone with the pause: it was not an interruption.
    expect(judge.push(silence(8, 320), 'speaking')).toBe('resumed');
    expect(judge.push(ended(8), 'speaking')).toBe('dismissed');
    // The user, who goes on talking, interrupts 250 ms after the pause.
    expect(judge.push(speech(9, 320, 5000), 'speaking')).toBe('paused');
    for (let at = 5032; at < 5250; at += 32) {
      expect(judge.push(speech(9, 320 + at - 5000, at), 'speaking')).toBeUndefined();
    }
    expect(judge.push(speech(9, 576, 5256), 'speaking')).toBe('confirmed');
  });

  it("speech doubtful while hark's voice reached the microphone counts once it goes on after the pause", () => {
    // hark's voice not heard (headphones): the canceller never converges, so the user's first
    // 320 ms are doubtful and pause the reply; 64 ms heard clear of hark's voice confirm them.
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 300, confirmAfterPauseMs: 250 });
    expect(judge.push(speech(5, 0, 1032, 32), 'speaking')).toBe('paused');
    hearDoubtful(judge, 5, 0, 1064, 1320, 64);
    expect(judge.push(speech(5, 32, 1352, 320), 'speaking')).toBeUndefined();
    expect(judge.push(speech(5, 64, 1384, 320), 'speaking')).toBe('confirmed');
  });

  it("doubtful speech that falls silent when hark's voice stops is no interruption (an echo louder than measured)", () => {
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 300, confirmAfterPauseMs: 250 });
    expect(judge.push(speech(6, 0, 1032, 32), 'speaking')).toBe('paused');
    hearDoubtful(judge, 6, 0, 1064, 1640, 64);
    // One frame of its reverberation is heard clear of it, then nothing.
    expect(judge.push(speech(6, 32, 1672, 640), 'speaking')).toBeUndefined();
    expect(judge.push(silence(6, 320), 'speaking')).toBe('resumed');
    // After the resume, what was heard before it no longer counts, doubtful or not.
    expect(judge.push(speech(6, 64, 2032, 640), 'speaking')).toBe('paused');
    expect(judge.push(speech(6, 128, 2290, 640), 'speaking')).toBeUndefined();
    // Paused again in the same stretch: only clear speech since this pause shows it outlasted the echo.
    expect(judge.push(silence(6, 320), 'speaking')).toBe('resumed');
    expect(judge.push(speech(6, 128, 3032, 672), 'speaking')).toBe('paused');
    hearDoubtful(judge, 6, 128, 3064, 3640, 704);
    expect(judge.push(speech(6, 160, 3672, 1280), 'speaking')).toBeUndefined();
  });

  it("doubtful speech whose tail, clear of hark's voice, scores under the start threshold is no interruption", () => {
    // An echo turned up 60 dB: it paused the reply, and its reverberation, fading, was still
    // scored 0.44 and 0.35 once nothing hark played could reach the microphone.
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 300, confirmAfterPauseMs: 250 });
    expect(judge.push(speech(7, 0, 1032, 32), 'speaking')).toBe('paused');
    hearDoubtful(judge, 7, 0, 1064, 1480, 64);
    expect(judge.push(speech(7, 32, 1512, 480, 0), 'speaking')).toBeUndefined();
    expect(judge.push(speech(7, 64, 1544, 480, 0), 'speaking')).toBeUndefined();
    expect(judge.push(silence(7, 320), 'speaking')).toBe('resumed');
  });

  it('a speaker who was already talking when hark started is an interruption at once', () => {
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 200 });
    expect(judge.push(speech(4, 320), 'listening')).toBeUndefined();
    expect(judge.push(speech(4, 352), 'thinking')).toBe('confirmed');
  });

  it('the short gaps between words count toward an interruption, up to half as long as the voiced part', () => {
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 300 });
    // "Stop, wait": 64 ms voiced from 1000 ms, a 96 ms gap, then voiced again from 1160 ms.
    expect(judge.push(speech(1, 32, 1032), 'speaking')).toBe('paused');
    expect(judge.push(speech(1, 64, 1064), 'speaking')).toBeUndefined();
    for (const silentMs of [32, 64, 96]) expect(judge.push(silence(1, silentMs), 'speaking')).toBeUndefined();
    // 192 ms voiced + the 96 ms gap: 288 ms of speech.
    for (let k = 1; k <= 4; k++) expect(judge.push(speech(1, 64 + 32 * k, 1160 + 32 * k), 'speaking')).toBeUndefined();
    // 224 ms voiced + 96 ms: the interruption, 96 ms before 300 ms of pure voicing.
    expect(judge.push(speech(1, 224, 1320), 'speaking')).toBe('confirmed');
  });

  it('a gap counts only up to half the voiced time: a click, a long gap and a click are no interruption', () => {
    const judge = new BargeInJudge({ minSpeechMs: 300, resumeAfterMs: 600 });
    expect(judge.push(speech(2, 32, 5032), 'speaking')).toBe('paused');
    expect(judge.push(silence(2, 544), 'speaking')).toBeUndefined();
    expect(judge.push(speech(2, 64, 5608), 'speaking')).toBeUndefined();
    expect(judge.push(silence(2, 608), 'speaking')).toBe('resumed');
  });

  describe('whether the words of speech over hark become a query', () => {
    const POLICY = { minSpeechMs: 300, resumeAfterMs: 200 };

    it('speech the reply paused for and played on over is dismissed when it ends: its words are no query', () => {
      // What a real sound server did: hark's own voice let through by the canceller for 160 ms.
      const judge = new BargeInJudge(POLICY);
      expect(judge.push(speech(3, 32), 'speaking')).toBe('paused');
      for (let ms = 64; ms <= 160; ms += 32) expect(judge.push(speech(3, ms), 'speaking')).toBeUndefined();
      expect(judge.push(silence(3, 224), 'speaking')).toBe('resumed');
      expect(judge.push(ended(3), 'speaking')).toBe('dismissed');
    });

    it('still paused when it ends, it is resumed and dismissed at once', () => {
      const judge = new BargeInJudge(POLICY);
      expect(judge.push(speech(4, 32), 'speaking')).toBe('paused');
      expect(judge.push(ended(4), 'speaking')).toBe('dismissed');
    });

    it('an interruption confirmed is no dismissal', () => {
      const judge = new BargeInJudge(POLICY);
      judge.push(speech(5, 32), 'speaking');
      expect(judge.push(speech(5, 320), 'speaking')).toBe('confirmed');
      expect(judge.push(ended(5), 'listening')).toBeUndefined();
    });

    it('the user going on after the reply ended makes it a query: hark answers it', () => {
      const judge = new BargeInJudge(POLICY);
      expect(judge.push(speech(6, 32), 'speaking')).toBe('paused');
      expect(judge.push(silence(6, 224), 'speaking')).toBe('resumed');
      // The reply ends; the user, who only paused, says the rest.
      for (let ms = 64; ms <= 352; ms += 32) judge.push(speech(6, ms), 'listening');
      expect(judge.push(ended(6), 'listening')).toBeUndefined();
    });

    it('a word too short to interrupt while hark thinks was never paused for: its words stay a query', () => {
      const judge = new BargeInJudge(POLICY);
      expect(judge.push(speech(7, 96), 'thinking')).toBeUndefined();
      expect(judge.push(ended(7), 'thinking')).toBeUndefined();
    });
  });
});
