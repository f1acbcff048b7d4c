import { describe, expect, it } from 'vitest';
import { progressLine, transcribeProgress } from '../../../src/cli/progress.js';
import type { ChunkResult } from '../../../src/listen/transcribe-long.js';

const ok = (startMs: number, endMs: number): ChunkResult => ({ startMs, endMs, status: 'ok', text: 'x' });

describe('the progress line of a long transcription', () => {
  it('says chunks done of about how many, how far, and how long it took', () => {
    const done = [ok(0, 25_000), ok(25_000, 50_000)];
    expect(progressLine(done, 2_400_000, 45_000)).toBe('transcribing: 2 of ~96 chunks, 0:50 of 40:00, 0:45 elapsed');
    const failed: ChunkResult = { startMs: 50_000, endMs: 75_000, status: 'failed', error: 'HTTP 503' };
    expect(progressLine([...done, failed], undefined, 61_000)).toBe(
      'transcribing: 3 chunks, 1:15, 1:01 elapsed, 1 not transcribed',
    );
  });

  it('is rewritten in place on a terminal and cleared at the end', () => {
    const written: string[] = [];
    let now = 1000;
    const progress = transcribeProgress({ isTTY: true, write: (t: string) => written.push(t) }, 60_000, () => now);
    now = 3000;
    progress?.chunk([ok(0, 29_000)]);
    progress?.end();
    expect(written).toEqual(['\r\x1b[2Ktranscribing: 1 of ~3 chunks, 0:29 of 1:00, 0:02 elapsed', '\r\x1b[2K']);
  });

  it('writes nothing when the output is not a terminal (a log, a pipe)', () => {
    expect(transcribeProgress({ isTTY: false, write: () => undefined }, 60_000, () => 0)).toBeUndefined();
  });
});
