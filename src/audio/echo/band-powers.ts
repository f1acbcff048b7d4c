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

  /** The frame's mean power in each band: they sum to about its mean power (meanSquare) over 125 Hz to 8 kHz. */
  of(samples: Int16Array): Float64Array {
    const { re, im, window } = this;
    for (let i = 0; i < re.length; i++) re[i] = (samples[i] ?? 0) * (window[i] as number);
    im.fill(0);
    this.fft.transform(re, im);
    const out = new Float64Array(BAND_COUNT);
    for (let b = 0; b < BAND_COUNT; b++) {
      let sum = 0;
      for (let k = this.edges[b] as number; k < (this.edges[b + 1] as number); k++)
        sum += (re[k] as number) ** 2 + (im[k] as number) ** 2;
      out[b] = sum * this.scale;
    }
    return out;
  }
}
