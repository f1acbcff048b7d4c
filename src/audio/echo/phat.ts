import type { Fft } from './fft.js';

/** Where a cross-correlation peaks (a fractional index), how clearly (0..1), and the correlation itself. */
export interface PhatPeak {
  index: number;
  confidence: number;
  correlation: Float64Array;
}

/**
 * conj(MIC) * REF, phase only, in bins `low`..`high` of one transform that held the reference in
 * its real part and the microphone in its imaginary part.
 */
export function phaseOnlyCross(re: Float64Array, im: Float64Array, [low, high]: [number, number]): Float64Array[] {
  const size = re.length;
  const crossRe = new Float64Array(size);
  const crossIm = new Float64Array(size);
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
export function foldInto(
  average: Float64Array[],
  cross: Float64Array[],
  [low, high]: [number, number],
  keep: number,
): void {
  for (let part = 0; part < 2; part++) {
    const into = average[part] as Float64Array;
    const from = cross[part] as Float64Array;
    for (let k = low; k <= high; k++) into[k] = keep * (into[k] as number) + (1 - keep) * (from[k] as number);
  }
}

/**
 * The correlation of an averaged phase-only cross-spectrum (bins `low`..`high` of `fft`'s size,
 * the rest zero), and its highest peak within indices 0..`maxIndex`, refined between samples by
 * a parabola. How clearly it stands out: 1 less the highest value further than `exclusion`
 * indices from it, over it (0 when nothing correlates).
 */
export function phatPeak(
  fft: Fft,
  [crossRe, crossIm]: Float64Array[],
  [low, high]: [number, number],
  maxIndex: number,
  exclusion: number,
): PhatPeak {
  const size = fft.size;
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  for (let k = low; k <= high; k++) {
    re[k] = re[size - k] = (crossRe as Float64Array)[k] as number;
    im[k] = (crossIm as Float64Array)[k] as number;
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
