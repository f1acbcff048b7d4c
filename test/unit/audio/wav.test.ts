import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEarcons } from '../../../src/audio/earcons.js';
import { runFfmpeg } from '../../../src/audio/ffmpeg.js';
import { bufferOf } from '../../../src/audio/pcm.js';
import { WavFileWriter, writeWavFile } from '../../../src/audio/wav-file.js';
import { readPcm16Mono, readWavInfo } from '../../../src/audio/wav-header.js';
import { createMemoryLogger } from '../../../src/system/logger.js';
import { FakePlayer } from '../../helpers/fakes.js';
import { tone } from '../../helpers/audio.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-wav-'));
const PCM = bufferOf(tone(250, 16000));

function chunk(id: string, body: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, Buffer.alloc(body.length % 2)]);
}

/** A fmt chunk; with `subFormat`, WAVE_FORMAT_EXTENSIBLE (40 bytes) with that subformat (1 PCM, 3 float). */
function fmt(bits: number, subFormat?: number): Buffer {
  const body = Buffer.alloc(subFormat === undefined ? 16 : 40);
  body.writeUInt16LE(subFormat === undefined ? 1 : 0xfffe, 0);
  body.writeUInt16LE(1, 2);
  body.writeUInt32LE(16000, 4);
  body.writeUInt32LE(16000 * (bits / 8), 8);
  body.writeUInt16LE(bits / 8, 12);
  body.writeUInt16LE(bits, 14);
  if (subFormat !== undefined) {
    body.writeUInt16LE(22, 16);
    body.writeUInt16LE(bits, 18);
    body.writeUInt32LE(0x4, 20);
    body.writeUInt16LE(subFormat, 24);
    Buffer.from('000000001000800000aa00389b71', 'hex').copy(body, 26);
  }
  return chunk('fmt ', body);
}

function riff(...chunks: Buffer[]): Buffer {
  const body = Buffer.concat([Buffer.from('WAVE'), ...chunks]);
  const head = Buffer.alloc(8);
  head.write('RIFF', 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

describe('reading WAV', () => {
  it.each([
    [
      'JUNK and bext chunks before fmt (broadcast WAV)',
      riff(chunk('JUNK', Buffer.alloc(28)), chunk('bext', Buffer.alloc(602)), fmt(16), chunk('data', PCM)),
    ],
    [
      'an odd-sized LIST chunk, padded, before data',
      riff(fmt(16), chunk('LIST', Buffer.from('INFOx')), chunk('data', PCM)),
    ],
    [
      'fmt after a fact chunk, and chunks after data',
      riff(chunk('fact', Buffer.alloc(4)), fmt(16), chunk('data', PCM), chunk('LIST', Buffer.alloc(3))),
    ],
    ['WAVE_FORMAT_EXTENSIBLE with a PCM subformat', riff(fmt(16, 1), chunk('data', PCM))],
  ])('finds the samples whatever the layout: %s', (_name, bytes) => {
    const { pcm, sampleRateHz } = readPcm16Mono(bytes);
    expect(sampleRateHz).toBe(16000);
    expect(pcm.equals(PCM)).toBe(true);
  });

  it('resolves WAVE_FORMAT_EXTENSIBLE to its subformat, so float is never read as integers', () => {
    const float = riff(fmt(32, 3), chunk('data', Buffer.alloc(800)));
    expect(readWavInfo(float)).toMatchObject({ audioFormat: 3, extensible: true, bitsPerSample: 32 });
    expect(() => readPcm16Mono(float)).toThrow('must be 16-bit integer PCM mono (it is 32-bit float, 1 channel(s))');
  });

  it('reads what ffmpeg writes as WAVE_FORMAT_EXTENSIBLE (24-bit), and says why it is not usable as is', async () => {
    const wav = await runFfmpeg(
      ['-f', 's16le', '-ar', '16000', '-ac', '1', '-i', 'pipe:0', '-c:a', 'pcm_s24le', '-f', 'wav', 'pipe:1'],
      PCM,
    );
    expect(readWavInfo(wav)).toMatchObject({
      extensible: true,
      audioFormat: 1,
      bitsPerSample: 24,
      sampleRateHz: 16000,
    });
    expect(() => readPcm16Mono(wav)).toThrow(/it is 24-bit integer/);
  });

  it('an earcon in WAVE_FORMAT_EXTENSIBLE with a LIST chunk plays; a float one is refused, and the log says why', () => {
    const sounds = join(dir, 'sounds');
    mkdirSync(sounds);
    writeFileSync(
      join(sounds, 'listening.wav'),
      riff(fmt(16, 1), chunk('LIST', Buffer.from('INFOabc')), chunk('data', PCM)),
    );
    writeFileSync(join(sounds, 'error.wav'), riff(fmt(32, 3), chunk('data', Buffer.alloc(800))));
    const player = new FakePlayer(16000, () => 0);
    const logger = createMemoryLogger();
    const earcons = loadEarcons(player, logger, sounds);
    earcons.play('listening');
    earcons.play('error');
    expect(player.writtenSamples()).toBe(PCM.length / 2);
    expect(logger.lines).toEqual([
      expect.objectContaining({ event: 'earcon.unusable', error: expect.stringMatching(/32-bit float/) }),
    ]);
  });
});

describe('writing WAV files (the wav package)', () => {
  it('has the real length in its header once closed', async () => {
    const path = join(dir, 'growing.wav');
    const file = new WavFileWriter(path, 16000);
    file.write(PCM);
    file.write(PCM);
    await file.close();
    const bytes = readFileSync(path);
    expect(bytes.readUInt32LE(40)).toBe(PCM.length * 2);
    expect(readPcm16Mono(bytes).pcm.equals(Buffer.concat([PCM, PCM]))).toBe(true);
  });

  it('a file closed before any audio is a valid empty WAV', async () => {
    const path = join(dir, 'empty.wav');
    await new WavFileWriter(path, 24000).close();
    expect(readWavInfo(readFileSync(path))).toMatchObject({ sampleRateHz: 24000, dataBytes: 0 });
  });

  it('writeWavFile: the file appears only complete; a stream that fails leaves nothing behind', async () => {
    const out = mkdtempSync(join(dir, 'say-'));
    async function* speech(fail: boolean) {
      yield PCM;
      if (fail) throw new Error('connection reset mid-stream');
      yield PCM;
    }
    await expect(writeWavFile(join(out, 'broken.wav'), 16000, speech(true))).rejects.toThrow('connection reset');
    expect(readdirSync(out)).toEqual([]);
    expect(await writeWavFile(join(out, 'hello.wav'), 16000, speech(false))).toBe(PCM.length * 2);
    expect(readdirSync(out)).toEqual(['hello.wav']);
    expect(existsSync(join(out, 'hello.wav'))).toBe(true);
  });
});
