import { describe, expect, it } from 'vitest';
import { cutAsItArrives, quietestCut, splitAtQuietPoints, MAX_CHUNK_MS } from '../../../src/listen/long-audio.js';
import { joinTranscripts, promptTail } from '../../../src/listen/transcript.js';
import { transcribeChunks, transcribeLong } from '../../../src/listen/transcribe-long.js';
import { bufferOf } from '../../../src/audio/pcm.js';
import { ServiceError } from '../../../src/service/service-error.js';
import { pcmToWav, readWavInfo } from '../../../src/audio/wav-header.js';
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

describe('cutAsItArrives', () => {
  /** PCM delivered in pieces of odd sizes, as a pipe from a decoder hands it over; counts what was pulled. */
  function delivered(samples: Int16Array, pieceBytes: number) {
    const bytes = Buffer.from(bufferOf(samples));
    const source = {
      pulledBytes: 0,
      async *[Symbol.asyncIterator]() {
        for (let at = 0; at < bytes.length; at += pieceBytes) {
          const piece = bytes.subarray(at, at + pieceBytes);
          source.pulledBytes += piece.length;
          yield piece;
        }
      },
    };
    return source;
  }

  it('makes the same cuts as splitAtQuietPoints, whatever the pieces', async () => {
    const samples = withGapsAt(95, [18, 27, 45, 52, 66, 80]);
    const expected = splitAtQuietPoints(samples, RATE);
    for (const pieceBytes of [4097, 65_536, 333_333]) {
      const chunks = [];
      const wavsMatch: boolean[] = [];
      for await (const chunk of cutAsItArrives(delivered(samples, pieceBytes), RATE)) {
        // A chunk is a view into the cutter's one buffer: good until the next is asked for.
        chunks.push({ startSample: chunk.startSample, samples: chunk.samples.slice() });
        wavsMatch.push(chunk.wav?.equals(pcmToWav(chunk.samples, RATE)) === true);
      }
      expect(wavsMatch.every(Boolean)).toBe(true);
      expect(chunks.map((c) => c.samples.length)).toEqual(expected.map((c) => c.length));
      expect(chunks.map((c) => c.startSample)).toEqual(
        expected.map((_, i) => expected.slice(0, i).reduce((n, c) => n + c.length, 0)),
      );
      const same = chunks.every((c, i) =>
        Buffer.from(bufferOf(c.samples)).equals(Buffer.from(bufferOf(expected[i] as Int16Array))),
      );
      expect(same).toBe(true);
    }
  });

  it('holds one chunk of audio, not the recording: the source is read only as chunks are taken', async () => {
    const source = delivered(tone(600_000, RATE, 200, 0.4), 65_536);
    const chunks = cutAsItArrives(source, RATE);
    await chunks.next();
    // Ten minutes of audio, of which a little over one 30 s window has been read.
    const windowBytes = (MAX_CHUNK_MS / 1000) * RATE * 2;
    expect(source.pulledBytes).toBeLessThanOrEqual(windowBytes + 65_536);
    await chunks.return(undefined);
  });
});

describe('transcribeChunks', () => {
  const chunksOf = (samples: Int16Array) => cutAsItArrives([Buffer.from(bufferOf(samples))], RATE);
  const failure = new ServiceError({
    endpoint: 'transcription',
    status: 503,
    type: 'http_503',
    message: 'engine overloaded',
  });

  it('keeps every finished chunk when one fails for good, and marks the gap with its time and reason', async () => {
    let call = 0;
    const result = await transcribeChunks(chunksOf(withGapsAt(95, [18, 27, 45, 52, 66, 80])), RATE, async () => {
      call++;
      if (call === 2) throw failure;
      return `part ${call}.`;
    });
    expect(result.complete).toBe(false);
    expect(result.chunks.map((c) => c.status)).toEqual(['ok', 'failed', 'ok', 'ok']);
    const [, gap] = result.chunks;
    expect(result.text).toBe(
      `part 1. [… 0:27–${clockOf(gap?.endMs)} not transcribed: transcription: HTTP 503 http_503: engine overloaded] part 3. part 4.`,
    );
    expect(result.parts).toEqual(['part 1.', 'part 3.', 'part 4.']);
  });

  it('stops sending after three failures in a row, and marks the rest as one gap', async () => {
    let calls = 0;
    const result = await transcribeChunks(chunksOf(withGapsAt(150, [25, 50, 75, 100, 125])), RATE, async () => {
      calls++;
      if (calls > 1) throw failure;
      return 'only this.';
    });
    expect(calls).toBe(4);
    expect(result.chunks.map((c) => c.status)).toEqual(['ok', 'failed', 'failed', 'failed', 'skipped', 'skipped']);
    expect(result.text).toMatch(
      /^only this\. \[… 0:25–2:30 not transcribed: transcription: HTTP 503 .*; not sent after 3 failed chunks in a row\]$/,
    );
  });

  it('keeps what was transcribed when the decoder fails part way', async () => {
    async function* brokenDecoder() {
      yield Buffer.from(bufferOf(withGapsAt(40, [25])));
      throw new Error('ffmpeg failed (exit 1): corrupt frame');
    }
    const result = await transcribeChunks(cutAsItArrives(brokenDecoder(), RATE), RATE, async () => 'so far.', {
      durationMs: 3_600_000,
    });
    expect(result.text).toMatch(
      /^so far\. so far\. \[… 0:40–1:00:00 not transcribed: ffmpeg failed \(exit 1\): corrupt frame\]$/,
    );
  });
});

function clockOf(ms: number | undefined): string {
  const s = Math.floor((ms ?? 0) / 1000);
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

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
