import { describe, expect, it } from 'vitest';
import { SpeexDenoiser } from '../../../src/audio/speex-denoiser.js';

const options = { sampleRateHz: 16000, frameSamples: 160, suppressDb: -30 };

/** Deterministic white noise at about -30 dBFS. */
function noise(samples: number, seed = 1): Int16Array {
  let s = seed;
  return Int16Array.from({ length: samples }, () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return Math.round((s / 2 ** 31 - 0.5) * 3000);
  });
}

function power(x: Int16Array): number {
  return x.reduce((a, v) => a + v * v, 0) / x.length;
}

describe('SpeexDenoiser (speexdsp in WebAssembly)', () => {
  it('takes steady noise down by more than 10 dB once it has learnt it, and keeps a tone above it', async () => {
    const denoiser = await SpeexDenoiser.load(options);
    const input = noise(16000 * 2);
    // One second of noise, then a 1 kHz tone over it, 20 dB above.
    for (let i = 16000; i < input.length; i++)
      input[i] = (input[i] as number) + Math.round(8500 * Math.sin((2 * Math.PI * 1000 * i) / 16000));
    const out = denoiser.process(input);
    const noiseDb = 10 * Math.log10(power(out.subarray(8000, 16000)) / power(input.subarray(8000, 16000)));
    const toneDb = 10 * Math.log10(power(out.subarray(24000)) / power(input.subarray(24000)));
    expect(noiseDb).toBeLessThan(-10);
    expect(toneDb).toBeGreaterThan(-1.5);
    denoiser.close();
  });

  it('is one frame late, the first frame said twice rather than silence', async () => {
    const denoiser = await SpeexDenoiser.load({ ...options, suppressDb: 0 });
    expect(denoiser.latencySamples).toBe(160);
    const input = Int16Array.from({ length: 1600 }, (_, i) => Math.round(6000 * Math.sin(i / 7)));
    const out = denoiser.process(input);
    // With no suppression the output is the input, a frame late.
    for (let i = 320; i < 1600; i += 37)
      expect(Math.abs((out[i] as number) - (input[i - 160] as number))).toBeLessThan(200);
    expect(power(out.subarray(0, 160))).toBeGreaterThan(power(input.subarray(0, 160)) / 4);
    denoiser.close();
  });

  it('after reset starts afresh: the same audio comes out the same', async () => {
    const denoiser = await SpeexDenoiser.load(options);
    const input = noise(3200, 7);
    const first = denoiser.process(input);
    denoiser.process(noise(3200, 9));
    denoiser.reset();
    expect(denoiser.process(input)).toEqual(first);
    denoiser.close();
  });

  it('takes whole frames only, and says why it cannot load', async () => {
    const denoiser = await SpeexDenoiser.load(options);
    expect(() => denoiser.process(new Int16Array(100))).toThrow(/whole frames of 160/);
    denoiser.close();
    await expect(SpeexDenoiser.load(options, '/nonexistent/speexdsp.wasm')).rejects.toThrow();
  });
});
