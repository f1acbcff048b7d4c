import { join } from 'node:path';
import { decodeFileToPcm } from '../../dist/audio/ffmpeg.js';
import { samplesOf } from '../../dist/audio/pcm.js';
import { PACKAGE_ROOT } from '../../dist/system/package-paths.js';

export const FIXTURES = join(PACKAGE_ROOT, 'test', 'fixtures');

export async function fixture(name: string, sampleRateHz = 16000): Promise<Int16Array> {
  return samplesOf(await decodeFileToPcm(join(FIXTURES, name), sampleRateHz));
}

export function concatSamples(parts: Int16Array[]): Int16Array {
  const all = new Int16Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

export function silence(ms: number, sampleRateHz = 16000): Int16Array {
  return new Int16Array(Math.round((ms / 1000) * sampleRateHz));
}

/**
 * A short clip of real speech for turn-taking benchmarks: from 60 ms before the speech onset
 * (where Silero first scores 0.5) for `lengthMs`, with 15 ms fades, so that splicing it into
 * digital silence adds no click that a VAD could take for speech.
 */
export async function speechClip(lengthMs = 1600): Promise<{ samples: Int16Array; onsetMs: number }> {
  const { SileroVad } = await import('../../dist/listen/silero-vad.js');
  const { VAD_FRAME_SAMPLES } = await import('../../dist/listen/vad.js');
  const all = await fixture('utterance-8k.wav');
  const vad = await SileroVad.load({ capDbfs: -100, marginDb: 0 });
  let onset = 0;
  for (let at = 0; at + VAD_FRAME_SAMPLES <= all.length; at += VAD_FRAME_SAMPLES) {
    if ((await vad.probability(all.subarray(at, at + VAD_FRAME_SAMPLES))) >= 0.5) {
      onset = at;
      break;
    }
  }
  await vad.close();
  const start = Math.max(0, onset - 60 * 16);
  const samples = all.slice(start, start + Math.round(lengthMs * 16));
  const fade = 15 * 16;
  for (let i = 0; i < fade; i++) {
    samples[i] = Math.round((samples[i] as number) * (i / fade));
    const j = samples.length - 1 - i;
    samples[j] = Math.round((samples[j] as number) * (i / fade));
  }
  return { samples, onsetMs: (onset - start) / 16 };
}
