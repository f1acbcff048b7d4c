import { wavHeader } from '../../src/audio/wav-header.js';
import { bufferOf } from '../../src/audio/pcm.js';

/** A sine tone as 16-bit mono PCM samples. */
export function tone(durationMs: number, sampleRateHz: number, frequencyHz = 220, amplitude = 0.3): Int16Array {
  const n = Math.round((durationMs / 1000) * sampleRateHz);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++)
    out[i] = Math.round(Math.sin((2 * Math.PI * frequencyHz * i) / sampleRateHz) * amplitude * 32767);
  return out;
}

export function wavOf(samples: Int16Array, sampleRateHz: number): Buffer {
  const pcm = bufferOf(samples);
  return Buffer.concat([wavHeader(pcm.length, sampleRateHz), pcm]);
}

export function toneWav(durationMs: number, sampleRateHz = 16000): Buffer {
  return wavOf(tone(durationMs, sampleRateHz), sampleRateHz);
}

export function wavDataUrl(wav: Buffer): string {
  return `data:audio/wav;base64,${wav.toString('base64')}`;
}

/**
 * Normalised correlation of `reference[from, to)` with `signal` shifted by `lag` samples,
 * every `step`th sample (a coarse search takes fewer).
 */
export function correlationAt(
  signal: Int16Array,
  reference: Int16Array,
  lag: number,
  from = 0,
  to = reference.length,
  step = 1,
): number {
  let dot = 0;
  let a = 0;
  let b = 0;
  for (let i = from; i < to && lag + i < signal.length; i += step) {
    const x = signal[lag + i] as number;
    const y = reference[i] as number;
    dot += x * y;
    a += x * x;
    b += y * y;
  }
  return dot / Math.sqrt(a * b || 1);
}
