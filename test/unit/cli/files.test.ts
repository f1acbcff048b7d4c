import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pcmToWav } from '../../../src/audio/wav-header.js';
import { probeAudioFile } from '../../../src/cli/files.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-files-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, bytes: Uint8Array | string): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('probeAudioFile', () => {
  it("gives a long WAV's whole length, from its header", async () => {
    // 3 s at 16 kHz: 96,000 bytes of samples, more than the part of the file the header is read from.
    const wav = file('long.wav', pcmToWav(new Int16Array(48_000).fill(1000), 16_000));
    expect(await probeAudioFile(wav)).toEqual({ audio: true, durationMs: 3000, problem: undefined });
  });

  it('asks ffmpeg about a WAV whose header cannot vouch for it, and about any other file', async () => {
    const broken = file('broken.wav', Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEjunk'), Buffer.alloc(64)]));
    await expect(probeAudioFile(broken)).rejects.toThrow(/broken\.wav: ffmpeg cannot read it as audio/);
    const text = file('notes.wav', 'not audio at all');
    await expect(probeAudioFile(text)).rejects.toThrow(/notes\.wav: ffmpeg cannot read it as audio/);
  });
});
