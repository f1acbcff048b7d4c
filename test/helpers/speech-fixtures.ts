import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { samplesOf } from '../../src/audio/pcm.js';
import { readWavInfo } from '../../src/audio/wav-header.js';
import { PACKAGE_ROOT } from '../../src/system/package-paths.js';

export const SPEECH_FIXTURES = join(PACKAGE_ROOT, 'test', 'fixtures', 'speech');

export interface Span {
  startMs: number;
  endMs: number;
}

export interface SpeechLabels {
  speech: Span[];
  nonSpeech: (Span & { what: string })[];
}

/** A labelled clip of test/fixtures/speech: 16 kHz samples and its hand-made labels. */
export function speechFixture(name: string): { samples: Int16Array; labels: SpeechLabels } {
  const wav = readFileSync(join(SPEECH_FIXTURES, `${name}.wav`));
  const info = readWavInfo(wav);
  if (info.sampleRateHz !== 16000 || info.channels !== 1 || info.bitsPerSample !== 16) {
    throw new Error(`${name}.wav must be 16 kHz 16-bit mono`);
  }
  const samples = samplesOf(Buffer.from(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes)));
  const labels = JSON.parse(readFileSync(join(SPEECH_FIXTURES, `${name}.labels.json`), 'utf8')) as SpeechLabels;
  return { samples, labels };
}

export const SPEECH_CLIPS = ['speech-a', 'speech-b', 'speech-c', 'speech-d', 'speech-e'] as const;
export const NON_SPEECH_CLIPS = ['cough', 'door', 'knock'] as const;
