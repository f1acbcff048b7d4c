import { onnxConstants, weightsOf } from '../onnx/onnx-constants.js';
import { dftWindow, FramePairs } from '../stft-window.js';
import { MEL_BINS } from './embedding-stream.js';

/**
 * openWakeWord's melspectrogram model, run by hark from the weights of its ONNX file: a short-time
 * Fourier transform of 512 samples every 160 (no padding; the model's basis is a windowed DFT, so a
 * windowed FFT computes it), the power of each bin, 32 mel bands, 10 log10 of each (from 1e-10),
 * and every value of the run raised to at least 80 dB below its loudest.
 */

const WINDOW = 512;
const HOP = 160;
const BINS = WINDOW / 2 + 1;
const FLOOR = 1e-10;
const TOP_DB = 80;

export class MelNetwork {
  private readonly pairs: FramePairs;
  private readonly power = [new Float64Array(BINS), new Float64Array(BINS)] as const;
  private readonly band = new Float64Array(MEL_BINS);

  /** The bands' weights by bin, zeros left out (a bin falls in one or two bands): bin k's are `from[k]` to `from[k + 1]`. */
  private readonly from = new Uint32Array(BINS + 1);
  private readonly bandOf: Uint8Array;
  private readonly weight: Float64Array;

  private constructor(
    window: Float32Array,
    /** Each bin's weight in each band: [bin][band]. */
    bands: Float32Array,
  ) {
    this.pairs = new FramePairs(window);
    const used = bands.reduce((n, w) => (w === 0 ? n : n + 1), 0);
    this.bandOf = new Uint8Array(used);
    this.weight = new Float64Array(used);
    let n = 0;
    for (let k = 0; k < BINS; k++) {
      this.from[k] = n;
      for (let j = 0; j < MEL_BINS; j++) {
        const w = bands[k * MEL_BINS + j] as number;
        if (w === 0) continue;
        this.bandOf[n] = j;
        this.weight[n++] = w;
      }
    }
    this.from[BINS] = n;
  }

  /** From the bytes of openWakeWord's `melspectrogram.onnx`; `OnnxModelError` if it is another model. */
  static fromOnnx(model: Uint8Array): MelNetwork {
    const all = onnxConstants(model);
    const real = weightsOf(all, '0.stft.conv_real.weight', [BINS, 1, WINDOW]);
    const imag = weightsOf(all, '0.stft.conv_imag.weight', [BINS, 1, WINDOW]);
    const window = dftWindow(real, imag, WINDOW, BINS, "openWakeWord's melspectrogram");
    return new MelNetwork(window, weightsOf(all, '1.melW', [BINS, MEL_BINS]));
  }

  /** The frames of `input` (samples at 16 kHz, scaled as 16-bit integers): `MEL_BINS` values in dB each. */
  frames(input: Float32Array): Float32Array {
    const count = input.length < WINDOW ? 0 : Math.floor((input.length - WINDOW) / HOP) + 1;
    const out = new Float32Array(count * MEL_BINS);
    let loudest = -Infinity;
    // Two frames a transform (so a sample that is not finite spoils its pair's other frame too;
    // samples come from 16-bit audio).
    for (let f = 0; f < count; f += 2) {
      const both = f + 1 < count;
      this.pairs.power(input, f * HOP, both ? (f + 1) * HOP : -1, this.power[0], this.power[1]);
      for (let p = 0; p < (both ? 2 : 1); p++) {
        const at = (f + p) * MEL_BINS;
        this.bandsOf(p === 0 ? this.power[0] : this.power[1]);
        for (let j = 0; j < MEL_BINS; j++) {
          const db = (10 * Math.log(Math.max(this.band[j] as number, FLOOR))) / Math.LN10;
          out[at + j] = db;
          if (db > loudest) loudest = db;
        }
      }
    }
    const lowest = loudest - TOP_DB;
    for (let i = 0; i < out.length; i++) if ((out[i] as number) < lowest) out[i] = lowest;
    return out;
  }

  private bandsOf(power: Float64Array): void {
    const { band, from, bandOf, weight } = this;
    band.fill(0);
    for (let k = 0; k < BINS; k++) {
      const p = power[k] as number;
      for (let i = from[k] as number; i < (from[k + 1] as number); i++) {
        const j = bandOf[i] as number;
        band[j] = (band[j] as number) + p * (weight[i] as number);
      }
    }
  }
}
