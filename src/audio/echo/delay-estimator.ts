import { Fft } from './fft.js';

export interface DelayEstimatorOptions {
  /** Rate of the frames pushed (16 kHz in hark); the estimator works at half of it. */
  sampleRateHz: number;
  /** Longest delay looked for, ms. */
  maxDelayMs: number;
  /** Microphone audio compared at each estimate, ms. */
  windowMs: number;
  /** How often an estimate is made while the reference plays, ms. */
  hopMs: number;
  /** Estimates less sure than this (0..1) are ignored. */
  minConfidence: number;
}

export interface DelayEstimate {
  /** Delay from "the reference plays" to "the microphone hears it", ms. */
  delayMs: number;
  /** How clearly the last accepted estimate stood out (0..1). */
  confidence: number;
  /** Estimates accepted so far. */
  updates: number;
}

const DECIMATION = 2;
/** Band compared, Hz: speech, above hum and below the decimated Nyquist. */
const BAND_HZ: [number, number] = [150, 3600];
/** Weight of older cross-spectra at each new estimate. */
const MEMORY = 0.5;
/** Quieter reference or microphone windows (mean power, about -60 dBFS and -80 dBFS) tell nothing. */
const REFERENCE_FLOOR = 32768 * 32768 * 1e-6;
const MIC_FLOOR = 32768 * 32768 * 1e-8;
/** A new delay further than this from the current one must be seen twice before it is taken, ms. */
const JUMP_MS = 2;
/** Share of an agreeing estimate folded into the current delay. */
const SMOOTHING = 0.3;
/** The second-highest correlation peak is looked for outside this distance of the highest, ms. */
const PEAK_EXCLUSION_MS = 1;

/**
 * Estimates and tracks the delay of the echo: how long after the reference (what the player
 * played, on the microphone's clock) the microphone hears it. GCC-PHAT over a window of the
 * last `windowMs` of microphone audio against the reference up to `maxDelayMs` earlier,
 * with cross-spectra averaged over successive estimates. Pure: it counts samples, reads no clock.
 */
export class DelayEstimator {
  private readonly rate: number;
  private readonly maxLag: number;
  private readonly window: number;
  private readonly hop: number;
  private readonly fft: Fft;
  private readonly mic: Float64Array;
  private readonly ref: Float64Array;
  private written = 0;
  private sinceEstimate = 0;
  private readonly crossRe: Float64Array;
  private readonly crossIm: Float64Array;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private crossFrames = 0;
  private current: DelayEstimate | null = null;
  private candidateMs: number | null = null;
  private coherenceAtDelay: number | null = null;

  constructor(readonly options: DelayEstimatorOptions) {
    this.rate = options.sampleRateHz / DECIMATION;
    this.maxLag = Math.ceil((options.maxDelayMs / 1000) * this.rate);
    this.window = Math.ceil((options.windowMs / 1000) * this.rate);
    this.hop = Math.max(1, Math.round((options.hopMs / 1000) * this.rate));
    let size = 2;
    while (size < this.window + this.maxLag) size *= 2;
    this.fft = new Fft(size);
    this.mic = new Float64Array(this.window);
    this.ref = new Float64Array(this.window + this.maxLag);
    this.crossRe = new Float64Array(size);
    this.crossIm = new Float64Array(size);
    this.re = new Float64Array(size);
    this.im = new Float64Array(size);
  }

  /** Microphone audio and the reference playing at the same instants (not shifted), equal even lengths. */
  push(mic: Int16Array, reference: Int16Array): void {
    if (mic.length !== reference.length) throw new RangeError('microphone and reference frames differ in length');
    for (let i = 0; i + 1 < mic.length; i += DECIMATION) {
      const m = ((mic[i] as number) + (mic[i + 1] as number)) / 2;
      const r = ((reference[i] as number) + (reference[i + 1] as number)) / 2;
      this.mic[this.written % this.mic.length] = m;
      this.ref[this.written % this.ref.length] = r;
      this.written++;
      if (++this.sinceEstimate >= this.hop && this.written >= this.ref.length) {
        this.sinceEstimate = 0;
        this.estimateNow();
      }
    }
  }

  /**
   * `samples` of silence on both sides, as when nothing plays and nothing is measured: the
   * windows hold nothing to compare until audio is pushed again (no estimate is made on them).
   */
  skip(samples: number): void {
    const decimated = Math.floor(samples / DECIMATION);
    if (decimated >= this.ref.length) {
      this.mic.fill(0);
      this.ref.fill(0);
    } else {
      for (let i = 0; i < decimated; i++) {
        this.mic[(this.written + i) % this.mic.length] = 0;
        this.ref[(this.written + i) % this.ref.length] = 0;
      }
    }
    this.written += decimated;
    this.sinceEstimate = 0;
  }

  /** The tracked delay, or null before any estimate was sure enough. */
  estimate(): DelayEstimate | null {
    return this.current;
  }

  /**
   * The delay has moved by `deltaMs` while there was nothing to measure it on (a silence, over
   * which it drifted on): the estimate moves with it, and the cross-spectra averaged before the
   * silence are dropped, so the next estimate is made from fresh audio only.
   */
  carry(deltaMs: number): void {
    if (this.current) this.current = { ...this.current, delayMs: this.current.delayMs + deltaMs };
    this.candidateMs = null;
    this.crossFrames = 0;
  }

  /** Forgets everything (e.g. another playback device). */
  reset(): void {
    this.mic.fill(0);
    this.ref.fill(0);
    this.written = 0;
    this.sinceEstimate = 0;
    this.crossRe.fill(0);
    this.crossIm.fill(0);
    this.crossFrames = 0;
    this.current = null;
    this.candidateMs = null;
    this.coherenceAtDelay = null;
  }

  private estimateNow(): void {
    const { re, im, fft } = this;
    const size = fft.size;
    re.fill(0);
    im.fill(0);
    // The reference window (oldest first) goes in the real part, the microphone window in the imaginary part.
    let refPower = 0;
    let micPower = 0;
    for (let i = 0; i < this.ref.length; i++) {
      const v = this.ref[(this.written + i) % this.ref.length] as number;
      re[i] = v;
      refPower += v * v;
    }
    for (let i = 0; i < this.mic.length; i++) {
      const v = this.mic[(this.written + i) % this.mic.length] as number;
      im[i] = v;
      micPower += v * v;
    }
    if (refPower / this.ref.length < REFERENCE_FLOOR || micPower / this.mic.length < MIC_FLOOR) return;
    fft.transform(re, im);
    const low = Math.ceil((BAND_HZ[0] / this.rate) * size);
    const high = Math.floor((BAND_HZ[1] / this.rate) * size);
    const keep = this.crossFrames === 0 ? 0 : MEMORY;
    // Unpack the two spectra and fold conj(MIC) * REF, phase only, into the running average.
    const phatRe = new Float64Array(size);
    const phatIm = new Float64Array(size);
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
      this.crossRe[k] = keep * (this.crossRe[k] as number) + (1 - keep) * (xr / mag);
      this.crossIm[k] = keep * (this.crossIm[k] as number) + (1 - keep) * (xi / mag);
      phatRe[k] = this.crossRe[k] as number;
      phatIm[k] = this.crossIm[k] as number;
      phatRe[j] = this.crossRe[k] as number;
      phatIm[j] = -(this.crossIm[k] as number);
    }
    this.crossFrames++;
    fft.transform(phatRe, phatIm, true);
    this.noteCoherence(phatRe, high - low + 1);
    // phatRe[m] peaks where mic[i] lines up with ref[i + m]: the delay is maxLag - m.
    let best = 0;
    let bestValue = -Infinity;
    for (let m = 0; m <= this.maxLag; m++) {
      if ((phatRe[m] as number) > bestValue) {
        bestValue = phatRe[m] as number;
        best = m;
      }
    }
    const exclusion = Math.ceil((PEAK_EXCLUSION_MS / 1000) * this.rate);
    let second = 0;
    for (let m = 0; m <= this.maxLag; m++) {
      if (Math.abs(m - best) > exclusion) second = Math.max(second, phatRe[m] as number);
    }
    if (bestValue <= 0) return;
    const confidence = Math.max(0, Math.min(1, 1 - second / bestValue));
    if (confidence < this.options.minConfidence) return;
    const left = best > 0 ? (phatRe[best - 1] as number) : bestValue;
    const right = best < this.maxLag ? (phatRe[best + 1] as number) : bestValue;
    const curve = left - 2 * bestValue + right;
    const offset = curve < 0 ? Math.max(-0.5, Math.min(0.5, (left - right) / (2 * curve))) : 0;
    this.accept(((this.maxLag - best - offset) / this.rate) * 1000, confidence);
  }

  /**
   * How much of the microphone's sound, lately, is the reference at the tracked delay: the
   * correlation there, 1 when every frequency lines up, about 0 for a talker alone or an echo
   * lost in the noise. null before a delay is tracked.
   */
  coherence(): number | null {
    return this.coherenceAtDelay;
  }

  private noteCoherence(phat: Float64Array, bins: number): void {
    if (!this.current) return;
    const lag = Math.round(this.maxLag - (this.current.delayMs / 1000) * this.rate);
    let peak = -Infinity;
    for (let m = Math.max(0, lag - 1); m <= Math.min(this.maxLag, lag + 1); m++)
      peak = Math.max(peak, phat[m] as number);
    this.coherenceAtDelay = (peak * this.fft.size) / (2 * bins);
  }

  private accept(delayMs: number, confidence: number): void {
    const current = this.current;
    if (current && Math.abs(delayMs - current.delayMs) <= JUMP_MS) {
      this.current = {
        delayMs: current.delayMs + SMOOTHING * (delayMs - current.delayMs),
        confidence,
        updates: current.updates + 1,
      };
      this.candidateMs = null;
      return;
    }
    if (this.candidateMs === null || Math.abs(delayMs - this.candidateMs) > JUMP_MS) {
      this.candidateMs = delayMs;
      return;
    }
    this.current = { delayMs, confidence, updates: (current?.updates ?? 0) + 1 };
    this.candidateMs = null;
  }
}
