import { resolve } from 'node:path';
import { decodeFileToPcm } from '../../src/audio/ffmpeg.js';
import { samplesOf } from '../../src/audio/pcm.js';

export const FIXTURES = resolve(import.meta.dirname, '../fixtures');
export const UTTERANCE = resolve(FIXTURES, 'utterance-8k.wav');
export const MONOLOGUE = resolve(FIXTURES, 'monologue-71s.ogg');

/** A fixture as 16 kHz mono samples. */
export async function fixtureSamples(path: string, sampleRateHz = 16000): Promise<Int16Array> {
  return samplesOf(await decodeFileToPcm(path, sampleRateHz));
}
