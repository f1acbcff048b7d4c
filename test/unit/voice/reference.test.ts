import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runFfmpeg } from '../../../src/audio/ffmpeg.js';
import { readWavInfo } from '../../../src/audio/wav-header.js';
import { checkSpeechBody } from '../../../src/contract/rules/speech.js';
import { prepareReference, ReferenceClipError } from '../../../src/voice/reference.js';
import { MONOLOGUE, UTTERANCE } from '../../helpers/speech.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-reference-'));
const cache = join(dir, 'cache');
const TEXT = 'The verbatim words of the clip.';
const clip = (name: string) => join(dir, name);

function decodedWav(dataUrl: string): Buffer {
  return Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64');
}

beforeAll(async () => {
  // 20 s of real speech in several formats, a 60 s float stereo WAV of 23 MB, and silence.
  await runFfmpeg(['-i', MONOLOGUE, '-t', '20', '-y', clip('speech.mp3')]);
  await runFfmpeg(['-i', MONOLOGUE, '-t', '20', '-y', clip('speech.flac')]);
  await runFfmpeg(['-i', MONOLOGUE, '-t', '20', '-ac', '2', '-ar', '44100', '-y', clip('speech-stereo.wav')]);
  await runFfmpeg([
    '-i',
    MONOLOGUE,
    '-t',
    '60',
    '-ac',
    '2',
    '-ar',
    '48000',
    '-c:a',
    'pcm_f32le',
    '-y',
    clip('long-big.wav'),
  ]);
  await runFfmpeg(['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '15', '-y', clip('silence.wav')]);
  // 15 s of pink noise driven far into clipping: as loud as a voice all through, and no voice.
  await runFfmpeg([
    '-f',
    'lavfi',
    '-i',
    'anoisesrc=c=pink:a=0.5',
    '-af',
    'volume=12',
    '-t',
    '15',
    '-y',
    clip('noise.wav'),
  ]);
  writeFileSync(clip('not-audio.wav'), 'this is text, not audio');
  mkdirSync(clip('a-folder'));
});

// Each clip prepared is decoded by ffmpeg and scored by Silero: seconds of a core, more on a busy machine.
describe('prepareReference', { timeout: 30_000 }, () => {
  it.each(['speech.mp3', 'speech.flac', 'speech-stereo.wav'])(
    'turns %s into a mono WAV data URL the speech endpoint accepts',
    async (name) => {
      const prepared = await prepareReference(clip(name), TEXT, cache);
      const info = readWavInfo(decodedWav(prepared.reference.audio));
      expect(info).toMatchObject({ channels: 1, sampleRateHz: 24000, bitsPerSample: 16 });
      expect(prepared.durationMs).toBeGreaterThan(19_000);
      expect(prepared.reference.text).toBe(TEXT);
      expect(prepared.warnings).toEqual([]);
      const check = checkSpeechBody({ model: 'Ming-3.0-tts', input: 'Hello.', references: [prepared.reference] }, 'A');
      expect(check.errors).toEqual([]);
    },
  );

  it('trims a clip over 30 s (and over 10 MB) to at most 30 s at a quiet point, and says the transcript must match', async () => {
    expect(statSync(clip('long-big.wav')).size).toBeGreaterThan(10_000_000);
    const prepared = await prepareReference(clip('long-big.wav'), TEXT, cache);
    expect(prepared.durationMs).toBeLessThanOrEqual(30_000);
    expect(prepared.durationMs).toBeGreaterThan(24_000);
    expect(prepared.trimmedFromMs).toBeGreaterThan(59_000);
    expect(prepared.reference.audio.length).toBeLessThan(10_000_000);
    expect(prepared.warnings[0]).toMatch(
      /trimmed to \d+\.\d s: voice.referenceText must be the transcript of that first part only/,
    );
  });

  it('is encoded once: the second start-up reads the cache', async () => {
    const first = await prepareReference(clip('speech.flac'), TEXT, join(dir, 'cache-2'));
    const second = await prepareReference(clip('speech.flac'), TEXT, join(dir, 'cache-2'));
    expect(first.fromCache).toBe(false);
    expect(second.fromCache).toBe(true);
    expect(second.reference.audio).toBe(first.reference.audio);
  });

  it('makes the cache again when it was cut short, and goes on with a warning when it cannot be written', async () => {
    const first = await prepareReference(clip('speech.flac'), TEXT, join(dir, 'cache-3'));
    const bytes = readFileSync(first.cachedAt);
    writeFileSync(first.cachedAt, bytes.subarray(0, bytes.length / 2));
    const again = await prepareReference(clip('speech.flac'), TEXT, join(dir, 'cache-3'));
    expect(again.fromCache).toBe(false);
    expect(again.durationMs).toBe(first.durationMs);
    expect(readFileSync(again.cachedAt)).toEqual(bytes);
    const notADirectory = join(dir, 'cache-file');
    writeFileSync(notADirectory, 'a file where the cache directory should be');
    const uncached = await prepareReference(clip('speech.flac'), TEXT, notADirectory);
    expect(uncached.durationMs).toBe(first.durationMs);
    expect(uncached.warnings.join(' ')).toMatch(
      /the clip could not be cached in .*cache-file .*: it is converted at every start/,
    );
  });

  it('says where it looked for a clip given by a relative path', async () => {
    await expect(prepareReference('no-such-clip.wav', TEXT, cache)).rejects.toThrow(
      /no-such-clip\.wav: no such file \(looked for \/.*no-such-clip\.wav: a relative path is taken from where hark runs\)/,
    );
  });

  it('warns when there is less speech than clones well', async () => {
    const prepared = await prepareReference(UTTERANCE, TEXT, cache);
    expect(prepared.warnings.join(' ')).toMatch(/10 to 30 s clones a voice best/);
  });

  it.each([
    ['no transcript', 'speech.mp3', null, /voice.referenceText is missing/],
    ['an empty transcript', 'speech.mp3', '  ', /voice.referenceText is missing/],
    ['a missing file', 'nowhere.wav', TEXT, /no such file/],
    ['a directory', 'a-folder', TEXT, /voice.reference \S+a-folder: is a directory, not an audio file/],
    ['a file that is not audio', 'not-audio.wav', TEXT, /ffmpeg cannot read it as audio/],
    [
      'silence',
      'silence.wav',
      TEXT,
      /too little speech to clone a voice from: the VAD hears 0\.0 s of speech in its 15\.0 s/,
    ],
    [
      'clipped noise',
      'noise.wav',
      TEXT,
      /noise\.wav: too little speech to clone a voice from: the VAD hears \d\.\d s of speech in its 15\.0 s \(at least 2 s; give 10 to 30 s of clear speech\)/,
    ],
  ])('refuses %s with a clear error', async (_what, name, text, message) => {
    const error = await prepareReference(clip(name), text, cache).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ReferenceClipError);
    expect((error as Error).message).toMatch(message);
  });
});
