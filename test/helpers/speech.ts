import { join, resolve } from 'node:path';
import { decodeFileToPcm, runFfmpeg } from '../../src/audio/ffmpeg.js';
import { samplesOf } from '../../src/audio/pcm.js';

export const FIXTURES = resolve(import.meta.dirname, '../fixtures');
export const UTTERANCE = resolve(FIXTURES, 'utterance-8k.wav');
export const MONOLOGUE = resolve(FIXTURES, 'monologue-71s.ogg');

/** A fixture as 16 kHz mono samples. */
export async function fixtureSamples(path: string, sampleRateHz = 16000): Promise<Int16Array> {
  return samplesOf(await decodeFileToPcm(path, sampleRateHz));
}

/**
 * The utterance from just before its speech begins (where Silero first scores 0.5, about
 * 0.3 s in), with a 15 ms fade-in: spliced after digital silence, the room noise before the
 * speech would otherwise start with a step that a VAD may hear as speech.
 */
export async function cleanUtteranceWav(dir: string): Promise<string> {
  const path = join(dir, 'utterance-clean.wav');
  await runFfmpeg(['-ss', '0.25', '-i', UTTERANCE, '-af', 'afade=t=in:d=0.015', '-ar', '16000', '-y', path]);
  return path;
}
