import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { decodeStream } from '../../../src/audio/decode-stream.js';
import { decodeFileToPcm } from '../../../src/audio/ffmpeg.js';
import { readPcm16Mono } from '../../../src/audio/wav-header.js';
import type * as Spawn from '../../../src/system/spawn.js';
import { spawnChild } from '../../../src/system/spawn.js';
import { MONOLOGUE, UTTERANCE } from '../../helpers/speech.js';

vi.mock('../../../src/system/spawn.js', async (original) => {
  const real = await original<typeof Spawn>();
  return { ...real, spawnChild: vi.fn(real.spawnChild) };
});

async function collect(path: string, sampleRateHz: number): Promise<Buffer> {
  const pieces: Buffer[] = [];
  for await (const piece of decodeStream(path, sampleRateHz)) pieces.push(Buffer.from(piece));
  return Buffer.concat(pieces);
}

describe('decodeStream', () => {
  it('decodes as it reads, into one reused buffer: the same PCM as decoding the whole file', async () => {
    const pieces: Buffer[] = [];
    const buffers = new Set<ArrayBufferLike>();
    for await (const piece of decodeStream(MONOLOGUE, 16000)) {
      buffers.add(piece.buffer);
      pieces.push(Buffer.from(piece));
    }
    expect(Buffer.concat(pieces).equals(await decodeFileToPcm(MONOLOGUE, 16000))).toBe(true);
    // However long the file, the pieces live in one buffer: nothing piles up for the GC.
    expect(pieces.length).toBeGreaterThan(10);
    expect(buffers.size).toBe(1);
  });

  it('reads a 16-bit mono WAV at the asked rate as it is, and has ffmpeg resample one at another', async () => {
    const { pcm } = readPcm16Mono(readFileSync(UTTERANCE));
    vi.mocked(spawnChild).mockClear();
    expect((await collect(UTTERANCE, 8000)).equals(pcm)).toBe(true);
    expect(spawnChild).not.toHaveBeenCalled();
    const resampled = await collect(UTTERANCE, 16000);
    expect(spawnChild).toHaveBeenCalledTimes(1);
    expect(resampled.length).toBe(pcm.length * 2);
  });

  it("fails with ffmpeg's own words for a file that is not audio", async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hark-decode-test-')), 'notes.mp3');
    writeFileSync(path, 'these are notes, not audio');
    const run = async () => {
      for await (const piece of decodeStream(path, 16000)) void piece;
    };
    await expect(run()).rejects.toThrow(/ffmpeg failed \(exit \d+\): .*notes\.mp3/);
  });

  it('stops cleanly when the consumer stops early', async () => {
    let pieces = 0;
    for await (const piece of decodeStream(MONOLOGUE, 16000)) {
      void piece;
      if (++pieces === 2) break;
    }
    expect(pieces).toBe(2);
  });
});
