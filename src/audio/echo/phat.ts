import type { Fft } from './fft.js';

/** A spectrum's real and imaginary parts. */
export type Parts = [Float64Array, Float64Array];

/** Where a cross-correlation peaks (a fractional index), how clearly (0..1), and the correlation itself. */
export interface PhatPeak {
  index: number;
  confidence: number;
  correlation: Float64Array;
}

/**
 * conj(MIC) * REF, phase only, in bins `low`..`high` of one transform that held the reference in
 * its real part and the microphone in its imaginary part, written into the last argument (its other
 * bins are left as they are).
 */
export function phaseOnlyCross(
  re: Float64Array,
  im: Float64Array,
  [low, high]: [number, number],
  [crossRe, crossIm]: Parts,
): Parts {
  const size = re.length;
  for (let k = low; k <= high; k++) {
    const j = size - k;
    const zr = re[k] as number;
    const zi = im[k] as number;
    const cr = re[j] as number;
    const ci = -(im[j] as number);
    const refRe = (zr + cr) / 2;
    const refIm = (zi + ci) / 2;
    const micRe = (zi - ci) / 2;
    const micIm = -(zr - cr) / 2;
    const xr = micRe * refRe + micIm * refIm;
    const xi = micRe * refIm - micIm * refRe;
    const mag = Math.hypot(xr, xi) || 1;
    crossRe[k] = xr / mag;
    crossIm[k] = xi / mag;
  }
  return [crossRe, crossIm];
}

/** Folds a cross-spectrum into a running average of them, which keeps `keep` (0..1) of what it held. */
export function foldInto(average: Parts, cross: Parts, [low, high]: [number, number], keep: number): void {
  for (const part of [0, 1] as const) {
    const into = average[part];
    const from = cross[part];
    for (let k = low; k <= high; k++) into[k] = keep * (into[k] as number) + (1 - keep) * (from[k] as number);
  }
}

/**
 * The correlation of an averaged phase-only cross-spectrum (bins `low`..`high` of `fft`'s size,
 * the rest zero), and its highest peak within indices 0..`maxIndex`, refined between samples by
 * a parabola. How clearly it stands out: 1 less the highest value further than `exclusion`
 * indices from it, over it (0 when nothing correlates). `scratch` (two arrays of the size) holds
 * the correlation, which is returned.
 */
export function phatPeak(
  fft: Fft,
  [crossRe, crossIm]: Parts,
  [low, high]: [number, number],
  maxIndex: number,
  exclusion: number,
  [re, im]: Parts,
): PhatPeak {
  const size = fft.size;
  re.fill(0);
  im.fill(0);
  for (let k = low; k <= high; k++) {
    re[k] = re[size - k] = crossRe[k] as number;
    im[k] = crossIm[k] as number;
    im[size - k] = -(im[k] as number);
  }
  fft.transform(re, im, true);
  let best = 0;
  let bestValue = -Infinity;
  for (let m = 0; m <= maxIndex; m++) {
    if ((re[m] as number) > bestValue) {
      bestValue = re[m] as number;
      best = m;
    }
  }
  if (bestValue <= 0) return { index: best, confidence: 0, correlation: re };
  let second = 0;
  for (let m = 0; m <= maxIndex; m++) {
    if (Math.abs(m - best) > exclusion) second = Math.max(second, re[m] as number);
  }
  const left = best > 0 ? (re[best - 1] as number) : bestValue;
  const right = best < maxIndex ? (re[best + 1] as number) : bestValue;
  const curve = left - 2 * bestValue + right;
  const offset = curve < 0 ? Math.max(-0.5, Math.min(0.5, (left - right) / (2 * curve))) : 0;
  return { index: best + offset, confidence: Math.max(0, Math.min(1, 1 - second / bestValue)), correlation: re };
}
