import { Fft } from '../audio/echo/fft.js';
import { OnnxModelError } from './onnx/onnx-constants.js';

/**
 * The window of a short-time Fourier transform given as a basis: `real` holds `bins` rows of
 * window × cos, `imag` as many of window × sin with either sign (a transform of magnitudes takes
 * both), each `size` long. Checked within 1e-4, so that a fast transform of the windowed frame
 * computes what the basis would; `OnnxModelError` naming `what` otherwise.
 */
export function dftWindow(
  real: Float32Array,
  imag: Float32Array,
  size: number,
  bins: number,
  what: string,
): Float32Array {
  const window = real.slice(0, size);
  // The first bin's sine peaks a quarter of the way in.
  const sign = (imag[size + size / 4] as number) >= 0 ? 1 : -1;
  let worst = 0;
  for (let b = 0; b < bins; b++) {
    for (let k = 0; k < size; k++) {
      const angle = (2 * Math.PI * b * k) / size;
      const w = window[k] as number;
      worst = Math.max(
        worst,
        Math.abs((real[b * size + k] as number) - w * Math.cos(angle)),
        Math.abs((imag[b * size + k] as number) - sign * w * Math.sin(angle)),
      );
    }
  }
  // Not `worst > 1e-4`: a basis holding NaN must fail too.
  if (!(worst <= 1e-4)) throw new OnnxModelError(`not ${what}: its basis is ${worst} from a windowed DFT`);
  return window;
}

/**
 * The power spectra of windowed frames two at a time, through one complex FFT: one frame as the
 * real part, the other as the imaginary part, each one's spectrum then the even and the odd part
 * of the result.
 */
export class FramePairs {
  private readonly fft: Fft;
  private readonly re: Float64Array;
  private readonly im: Float64Array;

  constructor(private readonly window: Float32Array) {
    this.fft = new Fft(window.length);
    this.re = new Float64Array(window.length);
    this.im = new Float64Array(window.length);
  }

  /**
   * The power of each bin of `a` and `b` (as many bins as they hold) of the frames of `input`
   * starting at `first` and at `second` (-1: none, `b` is then left as it was).
   */
  power(input: Float32Array, first: number, second: number, a: Float64Array, b: Float64Array): void {
    const { re, im, window } = this;
    const size = window.length;
    for (let k = 0; k < size; k++) {
      const w = window[k] as number;
      re[k] = (input[first + k] as number) * w;
      im[k] = second < 0 ? 0 : (input[second + k] as number) * w;
    }
    this.fft.transform(re, im);
    for (let k = 0; k < a.length; k++) {
      const mirror = (size - k) % size;
      const zr = re[k] as number;
      const zi = im[k] as number;
      const mr = re[mirror] as number;
      const mi = im[mirror] as number;
      a[k] = ((zr + mr) ** 2 + (zi - mi) ** 2) / 4;
      if (second >= 0) b[k] = ((zi + mi) ** 2 + (mr - zr) ** 2) / 4;
    }
  }
}
