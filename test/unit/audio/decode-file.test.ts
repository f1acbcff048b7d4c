import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeFileToPcm } from '../../../src/audio/ffmpeg.js';
import { pcmToWav } from '../../../src/audio/wav-header.js';

// No ffmpeg to be had: what is decoded here is read by hark itself, or fails naming the ffmpeg it tried.
const NO_FFMPEG = '/nonexistent/hark-test-ffmpeg';

describe('decodeFileToPcm of a WAV', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hark-decode-file-'));
  const samples = Int16Array.from({ length: 16_000 }, (_, i) => Math.round(8000 * Math.sin(i / 7)));
  beforeAll(() => vi.stubEnv('HARK_FFMPEG', NO_FFMPEG));
  afterAll(() => vi.unstubAllEnvs());

  it('reads a 16-bit mono WAV at the rate asked for itself, sample for sample, without starting ffmpeg', async () => {
    const path = join(dir, 'ready.wav');
    writeFileSync(path, pcmToWav(samples, 16_000));
    const pcm = await decodeFileToPcm(path, 16_000);
    expect(pcm.equals(Buffer.from(samples.buffer))).toBe(true);
  });

  it('leaves a WAV at another rate to ffmpeg', async () => {
    const path = join(dir, 'other-rate.wav');
    writeFileSync(path, pcmToWav(samples, 24_000));
    await expect(decodeFileToPcm(path, 16_000)).rejects.toThrow(/ENOENT/);
  });
});
