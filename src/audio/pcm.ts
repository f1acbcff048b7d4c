/** 16-bit signed little-endian mono PCM: the one sample format inside hark. */
export const BYTES_PER_SAMPLE = 2;

export function samplesOf(pcm: Buffer): Int16Array {
  if (pcm.byteOffset % 2 === 0) return new Int16Array(pcm.buffer, pcm.byteOffset, Math.floor(pcm.length / 2));
  const copy = Buffer.from(pcm);
  return new Int16Array(copy.buffer, copy.byteOffset, Math.floor(copy.length / 2));
}

export function bufferOf(samples: Int16Array): Buffer {
  return Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
}

export function durationMs(bytes: number, sampleRateHz: number): number {
  return (bytes / BYTES_PER_SAMPLE / sampleRateHz) * 1000;
}

export function bytesFor(ms: number, sampleRateHz: number): number {
  return Math.round((ms / 1000) * sampleRateHz) * BYTES_PER_SAMPLE;
}

/** Root mean square of the samples, on the 0..1 scale. */
export function rms(samples: Int16Array, start = 0, end = samples.length): number {
  if (end <= start) return 0;
  let sum = 0;
  for (let i = start; i < end; i++) {
    const v = (samples[i] as number) / 32768;
    sum += v * v;
  }
  return Math.sqrt(sum / (end - start));
}

/** Mean square of the samples, on their own scale (-32768..32767). */
export function meanSquare(samples: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += (samples[i] as number) * (samples[i] as number);
  return sum / samples.length;
}

export function dbfs(level: number): number {
  return level > 0 ? 20 * Math.log10(level) : -120;
}

/** Linear-interpolation resampler: plenty for speech at the rates the service uses. */
export function resample(samples: Int16Array, fromHz: number, toHz: number): Int16Array {
  if (fromHz === toHz || samples.length === 0) return samples;
  const outLength = Math.max(1, Math.round((samples.length * toHz) / fromHz));
  const out = new Int16Array(outLength);
  const step = fromHz / toHz;
  const last = samples.length - 1;
  for (let i = 0; i < outLength; i++) {
    const pos = i * step;
    const left = Math.min(last, Math.floor(pos));
    const right = Math.min(last, left + 1);
    const frac = pos - left;
    out[i] = Math.round((samples[left] as number) * (1 - frac) + (samples[right] as number) * frac);
  }
  return out;
}

export function scale(samples: Int16Array, gain: number): Int16Array {
  if (gain === 1) return samples;
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    out[i] = Math.max(-32768, Math.min(32767, Math.round((samples[i] as number) * gain)));
  }
  return out;
}
