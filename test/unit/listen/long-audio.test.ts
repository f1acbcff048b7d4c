import { describe, expect, it } from 'vitest';
import { quietestCut, splitAtQuietPoints, MAX_CHUNK_MS } from '../../../src/listen/long-audio.js';
import { joinTranscripts, promptTail } from '../../../src/listen/transcript.js';
import { transcribeLong } from '../../../src/listen/transcribe-long.js';
import { readWavInfo } from '../../../src/audio/wav-header.js';
import { tone } from '../../helpers/audio.js';

const RATE = 16000;

/** Speech-like audio: loud stretches with silent gaps at the given seconds. */
function withGapsAt(totalS: number, gapsS: number[], gapMs = 300): Int16Array {
  const samples = tone(totalS * 1000, RATE, 200, 0.4);
  for (const at of gapsS) samples.fill(0, Math.round(at * RATE), Math.round((at + gapMs / 1000) * RATE));
  return samples;
}

describe('quietestCut', () => {
  it('finds the silent gap inside the search range', () => {
    const samples = withGapsAt(30, [21]);
    const cut = quietestCut(samples, RATE, 15_000, 29_800);
    expect(cut / RATE).toBeGreaterThan(21);
    expect(cut / RATE).toBeLessThan(21.3);
  });
});

describe('splitAtQuietPoints', () => {
  it('cuts 70 s into chunks of at most 30 s, each at a gap', () => {
    const samples = withGapsAt(70, [18, 27, 45, 52, 66]);
    const chunks = splitAtQuietPoints(samples, RATE);
    expect(chunks.length).toBeGreaterThanOrEqual(3);
    for (const chunk of chunks) expect(chunk.length / RATE).toBeLessThanOrEqual(MAX_CHUNK_MS / 1000);
    expect(chunks.reduce((sum, c) => sum + c.length, 0)).toBe(samples.length);
    const firstEnd = (chunks[0]?.length ?? 0) / RATE;
    expect(firstEnd).toBeGreaterThan(27);
    expect(firstEnd).toBeLessThan(27.3);
  });

  it('still cuts at the limit when there is no quiet point at all', () => {
    const chunks = splitAtQuietPoints(tone(65_000, RATE), RATE);
    for (const chunk of chunks) expect(chunk.length / RATE).toBeLessThanOrEqual(MAX_CHUNK_MS / 1000);
  });

  it('leaves short audio whole', () => {
    expect(splitAtQuietPoints(tone(5000, RATE), RATE)).toHaveLength(1);
  });
});

describe('transcript helpers', () => {
  it('promptTail keeps under 60 characters and starts at a word', () => {
    const tail = promptTail('one two three four five six seven eight nine ten eleven twelve thirteen fourteen');
    expect(tail.length).toBeLessThan(60);
    expect(tail).toBe('six seven eight nine ten eleven twelve thirteen fourteen');
    expect(promptTail('short')).toBe('short');
    // The cut lands just before a space: the prompt still starts with the word, not the space.
    const exact = `${'x'.repeat(40)} ${'y'.repeat(58)}`;
    expect(promptTail(exact)).toBe('y'.repeat(58));
    expect([...promptTail('这'.repeat(100))].length).toBe(59);
  });

  it('joinTranscripts puts spaces between words but not between Chinese characters', () => {
    expect(joinTranscripts(['hello there', ' general ', '', 'kenobi'])).toBe('hello there general kenobi');
    expect(joinTranscripts(['你好', '世界'])).toBe('你好世界');
    expect(joinTranscripts(['hello', '世界'])).toBe('hello 世界');
  });
});

describe('transcribeLong', () => {
  it('sends each chunk as a WAV of at most 30 s with the tail of the text so far as prompt', async () => {
    const calls: { seconds: number; prompt: string | undefined }[] = [];
    const result = await transcribeLong(withGapsAt(70, [20, 45]), RATE, async (wav, prompt) => {
      calls.push({ seconds: readWavInfo(wav).durationMs / 1000, prompt });
      return `part ${calls.length} of a long story told by someone who keeps talking`;
    });
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(calls[0]?.prompt).toBeUndefined();
    expect(calls[1]?.prompt).toBe(promptTail('part 1 of a long story told by someone who keeps talking'));
    for (const call of calls) expect(call.seconds).toBeLessThanOrEqual(30);
    expect(result.text.startsWith('part 1')).toBe(true);
    expect(result.parts).toHaveLength(calls.length);
  });
});
