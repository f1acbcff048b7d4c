/**
 * The power of a frame in frequency bands, about a third of an octave wide from 125 Hz up (a
 * Hann window, one transform): where in the spectrum a frame's sound is.
 */
import { Fft } from './fft.js';

/** Band edges in bins of a 256-point transform at 16 kHz (62.5 Hz each): 125 Hz to 8 kHz. */
const EDGES_AT_256 = [2, 3, 4, 5, 6, 8, 10, 12, 15, 18, 22, 27, 33, 40, 48, 58, 70, 84, 100, 116, 129];

export const BAND_COUNT = EDGES_AT_256.length - 1;

export class BandPowers {
  private readonly fft: Fft;
  private readonly window: Float64Array;
  private readonly edges: number[];
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  /** Makes the bands' sum over the whole spectrum the frame's mean power (the window's loss undone). */
  private readonly scale: number;

  /** For frames of `frameSamples`, a power of two of at least 64. */
  constructor(frameSamples: number) {
    this.fft = new Fft(frameSamples);
    this.window = Float64Array.from(
      { length: frameSamples },
      (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / frameSamples),
    );
    this.edges = EDGES_AT_256.map((bin) => Math.min(frameSamples / 2 + 1, Math.round((bin * frameSamples) / 256)));
    this.re = new Float64Array(frameSamples);
    this.im = new Float64Array(frameSamples);
    this.scale = 2 / (frameSamples * this.window.reduce((sum, w) => sum + w * w, 0));
  }

  /**
   * Two frames' mean power in each band (each sums to about its frame's mean power, meanSquare,
   * over 125 Hz to 8 kHz), from one transform: `a` in its real part and `b` (silence if none) in
   * its imaginary part.
   */
  of(a: Int16Array, b?: Int16Array): [Float64Array, Float64Array] {
    const { re, im, window } = this;
    const size = re.length;
    for (let i = 0; i < size; i++) {
      re[i] = (a[i] ?? 0) * (window[i] as number);
      im[i] = (b?.[i] ?? 0) * (window[i] as number);
    }
    this.fft.transform(re, im);
    const ofA = new Float64Array(BAND_COUNT);
    const ofB = new Float64Array(BAND_COUNT);
    for (let band = 0; band < BAND_COUNT; band++) {
      let sumA = 0;
      let sumB = 0;
      for (let k = this.edges[band] as number; k < (this.edges[band + 1] as number); k++) {
        // A[k] = (Z[k] + conj(Z[-k])) / 2 and B[k] = (Z[k] - conj(Z[-k])) / 2i, Z the transform of a + ib.
        const zr = re[k] as number;
        const zi = im[k] as number;
        const nr = re[size - k] as number;
        const ni = im[size - k] as number;
        sumA += (zr + nr) ** 2 + (zi - ni) ** 2;
        sumB += (zi + ni) ** 2 + (zr - nr) ** 2;
      }
      ofA[band] = (sumA / 4) * this.scale;
      ofB[band] = (sumB / 4) * this.scale;
    }
    return [ofA, ofB];
  }
}
