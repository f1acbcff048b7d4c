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

/**
 * A quiet room: pink noise (Paul Kellet's filter over seeded white noise) at `levelDbfs` RMS,
 * 16 kHz. The same seed gives the same noise.
 */
export function roomNoise(durationMs: number, levelDbfs: number, seed = 1): Int16Array {
  const n = Math.round((durationMs / 1000) * 16000);
  const pink = new Float64Array(n);
  let state = seed >>> 0 || 1;
  const white = (): number => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 31 - 1;
  };
  let [b0, b1, b2] = [0, 0, 0];
  let power = 0;
  // A second of the filter first: it starts at rest, and its slowest pole takes that long to fill.
  for (let i = -16000; i < n; i++) {
    const w = white();
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    if (i < 0) continue;
    pink[i] = b0 + b1 + b2 + w * 0.1848;
    power += (pink[i] as number) ** 2;
  }
  const gain = (32768 * 10 ** (levelDbfs / 20)) / Math.sqrt(power / Math.max(1, n));
  return Int16Array.from(pink, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
}
