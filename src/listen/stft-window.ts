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
