import { Fft } from '../../src/audio/echo/fft.js';

/**
 * Streaming convolution with a fixed response, block by block (overlap-add through the FFT).
 * Fed in short frames of a power-of-two size, it switches to a partitioned convolution (each
 * frame costs a few FFTs of twice its size, not of the whole response), and then takes frames of
 * that one size only.
 */
export class BlockConvolver {
  private tail: Float64Array;
  private readonly spectra = new Map<number, { fft: Fft; re: Float64Array; im: Float64Array }>();
  private partitioned: PartitionedConvolver | undefined;
  private pushed = 0;

  constructor(private readonly response: Float64Array) {
    this.tail = new Float64Array(response.length);
  }

  push(block: Float64Array): Float64Array {
    const n = block.length;
    if (this.pushed === 0 && n >= 64 && n <= 4096 && (n & (n - 1)) === 0 && n * 4 <= this.response.length) {
      this.partitioned = new PartitionedConvolver(this.response, n);
    }
    this.pushed++;
    if (this.partitioned) return this.partitioned.push(block);
    let size = 2;
    while (size < n + this.response.length) size *= 2;
    const { fft, re: hr, im: hi } = this.spectrum(size);
    const re = new Float64Array(size);
    const im = new Float64Array(size);
    re.set(block);
    fft.transform(re, im);
    for (let k = 0; k < size; k++) {
      const r = (re[k] as number) * (hr[k] as number) - (im[k] as number) * (hi[k] as number);
      im[k] = (re[k] as number) * (hi[k] as number) + (im[k] as number) * (hr[k] as number);
      re[k] = r;
    }
    fft.transform(re, im, true);
    const total = n + this.response.length - 1;
    const out = new Float64Array(n);
    const carry = new Float64Array(Math.max(this.tail.length, total - n));
    for (let i = 0; i < total; i++) {
      const v = (re[i] as number) + (i < this.tail.length ? (this.tail[i] as number) : 0);
      if (i < n) out[i] = v;
      else carry[i - n] = v;
    }
    for (let i = total; i < this.tail.length; i++) carry[i - n] = (carry[i - n] as number) + (this.tail[i] as number);
    this.tail = carry;
    return out;
  }

  private spectrum(size: number): { fft: Fft; re: Float64Array; im: Float64Array } {
    let entry = this.spectra.get(size);
    if (!entry) {
      const fft = new Fft(size);
      const re = new Float64Array(size);
      const im = new Float64Array(size);
      re.set(this.response);
      fft.transform(re, im);
      entry = { fft, re, im };
      this.spectra.set(size, entry);
    }
    return entry;
  }
}

/** Uniformly partitioned overlap-save convolution: blocks of `size` samples, the response cut into parts of that size. */
class PartitionedConvolver {
  private readonly fft: Fft;
  private readonly parts: { re: Float64Array; im: Float64Array }[] = [];
  /** Spectra of the last inputs (newest first), one per part of the response. */
  private readonly history: { re: Float64Array; im: Float64Array }[] = [];
  private readonly previous: Float64Array;

  constructor(
    response: Float64Array,
    private readonly size: number,
  ) {
    this.fft = new Fft(2 * size);
    for (let at = 0; at < response.length; at += size) {
      const re = new Float64Array(2 * size);
      const im = new Float64Array(2 * size);
      re.set(response.subarray(at, Math.min(response.length, at + size)));
      this.fft.transform(re, im);
      this.parts.push({ re, im });
      this.history.push({ re: new Float64Array(2 * size), im: new Float64Array(2 * size) });
    }
    this.previous = new Float64Array(size);
  }

  push(block: Float64Array): Float64Array {
    const n = this.size;
    if (block.length !== n)
      throw new RangeError(`a room fed in frames takes frames of ${n} samples (got ${block.length})`);
    const newest = this.history.pop() as { re: Float64Array; im: Float64Array };
    newest.re.set(this.previous);
    newest.re.set(block, n);
    newest.im.fill(0);
    this.fft.transform(newest.re, newest.im);
    this.history.unshift(newest);
    this.previous.set(block);
    const re = new Float64Array(2 * n);
    const im = new Float64Array(2 * n);
    for (let p = 0; p < this.parts.length; p++) {
      const x = this.history[p] as { re: Float64Array; im: Float64Array };
      const h = this.parts[p] as { re: Float64Array; im: Float64Array };
      for (let k = 0; k < 2 * n; k++) {
        const xr = x.re[k] as number;
        const xi = x.im[k] as number;
        const hr = h.re[k] as number;
        const hi = h.im[k] as number;
        re[k] = (re[k] as number) + xr * hr - xi * hi;
        im[k] = (im[k] as number) + xr * hi + xi * hr;
      }
    }
    this.fft.transform(re, im, true);
    return re.slice(n, 2 * n);
  }
}
