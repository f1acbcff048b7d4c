import { Fft } from './fft.js';
import { foldInto, phaseOnlyCross, phatPeak, type Parts } from './phat.js';

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
  /** This estimate was a new stream's own delay, taken as it is: the player's latency stepped. */
  stepped?: boolean;
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
 * A sound server starts each stream of the player's at its next period, so the delay steps by a
 * few milliseconds from one stream to the next. A new stream's delay is looked for once
 * STEP_AFTER_MS of it were pushed, then every STEP_HOP_MS, up to STEP_TRIES times; the first
 * estimate that stands out by STEP_CONFIDENCE and lies STEP_MIN_MS to STEP_MS from the delay
 * before is taken as it is (one estimate alone is off by a few tenths of a millisecond).
 */
const STEP_AFTER_MS = 250;
const STEP_HOP_MS = 100;
const STEP_TRIES = 8;
const STEP_CONFIDENCE = 0.6;
const STEP_MIN_MS = 1;
const STEP_MS = 30;

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
  private readonly stepHop: number;
  private readonly fft: Fft;
  private readonly mic: Float64Array;
  private readonly ref: Float64Array;
  private written = 0;
  private sinceEstimate = 0;
  /** The running average of phase-only cross-spectra, real and imaginary parts. */
  private readonly cross: Parts;
  private readonly re: Float64Array;
  private readonly im: Float64Array;
  private crossFrames = 0;
  private current: DelayEstimate | null = null;
  private candidateMs: number | null = null;
  private coherenceAtDelay: number | null = null;
  /** A new stream's own cross-spectra, the estimates of it left to make, and samples since the last. */
  private readonly streamCross: Parts;
  /** The cross-spectrum of the windows now, before it is averaged in. */
  private readonly crossNow: Parts;
  private streamFrames = 0;
  private stepping = 0;
  private sinceStep = 0;

  constructor(readonly options: DelayEstimatorOptions) {
    this.rate = options.sampleRateHz / DECIMATION;
    this.maxLag = Math.ceil((options.maxDelayMs / 1000) * this.rate);
    this.window = Math.ceil((options.windowMs / 1000) * this.rate);
    this.hop = Math.max(1, Math.round((options.hopMs / 1000) * this.rate));
    this.stepHop = Math.min(this.hop, Math.round((STEP_HOP_MS / 1000) * this.rate));
    let size = 2;
    while (size < this.window + this.maxLag) size *= 2;
    this.fft = new Fft(size);
    this.mic = new Float64Array(this.window);
    this.ref = new Float64Array(this.window + this.maxLag);
    this.cross = [new Float64Array(size), new Float64Array(size)];
    this.streamCross = [new Float64Array(size), new Float64Array(size)];
    this.crossNow = [new Float64Array(size), new Float64Array(size)];
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
      const main = ++this.sinceEstimate >= this.hop && this.written >= this.ref.length;
      const stream = this.stepping > 0 && ++this.sinceStep >= this.stepHop;
      if (main) this.sinceEstimate = 0;
      if (stream) {
        this.sinceStep = 0;
        this.stepping--;
      }
      if (main || stream) this.estimateNow(main, stream);
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

  /**
   * The player started a new stream, whose first sample is the next one pushed: it may sound
   * with another latency. Besides the usual estimates, its delay is measured on cross-spectra
   * of its own, more often, and taken as it is when it stepped (see STEP_MS).
   */
  newStream(): void {
    if (!this.current) return;
    this.streamFrames = 0;
    this.stepping = STEP_TRIES;
    this.sinceStep = this.stepHop - Math.round((STEP_AFTER_MS / 1000) * this.rate);
  }

  /** Forgets everything (e.g. another playback device). */
  reset(): void {
    this.mic.fill(0);
    this.ref.fill(0);
    this.written = 0;
    this.sinceEstimate = 0;
    for (const part of this.cross) part.fill(0);
    this.crossFrames = 0;
    this.current = null;
    this.candidateMs = null;
    this.coherenceAtDelay = null;
    this.stepping = 0;
    this.streamFrames = 0;
  }

  /** The usual estimate (`main`) and a new stream's own (`stream`), from one transform of the windows. */
  private estimateNow(main: boolean, stream: boolean): void {
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
    const band: [number, number] = [low, high];
    const cross = phaseOnlyCross(re, im, band, this.crossNow);
    if (stream) {
      foldInto(this.streamCross, cross, band, this.streamFrames++ === 0 ? 0 : MEMORY);
      const found = this.peak(this.streamCross, band);
      if (found) this.step(found.delayMs, found.confidence);
    }
    if (main) {
      foldInto(this.cross, cross, band, this.crossFrames++ === 0 ? 0 : MEMORY);
      const found = this.peak(this.cross, band, true);
      if (found) this.accept(found.delayMs, found.confidence);
    }
  }

  /** The delay where the averaged cross-spectrum's correlation peaks, and how clearly (null under minConfidence). */
  private peak(
    cross: Parts,
    band: [number, number],
    noteCoherence = false,
  ): { delayMs: number; confidence: number } | null {
    const exclusion = Math.ceil((PEAK_EXCLUSION_MS / 1000) * this.rate);
    // The windows' transform is spent (their cross-spectrum is taken): it holds the correlation.
    const found = phatPeak(this.fft, cross, band, this.maxLag, exclusion, [this.re, this.im]);
    if (noteCoherence) this.noteCoherence(found.correlation, band[1] - band[0] + 1);
    if (found.confidence < this.options.minConfidence) return null;
    // The correlation peaks where mic[i] lines up with ref[i + m]: the delay is maxLag - m.
    return { delayMs: ((this.maxLag - found.index) / this.rate) * 1000, confidence: found.confidence };
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

  /** A new stream's own estimate: its delay is taken as it is when clearly a step from the one before. */
  private step(delayMs: number, confidence: number): void {
    const current = this.current;
    if (!current || confidence < STEP_CONFIDENCE) return;
    const step = Math.abs(delayMs - current.delayMs);
    if (step >= STEP_MIN_MS && step <= STEP_MS) {
      this.current = { delayMs, confidence, updates: current.updates + 1, stepped: true };
      this.candidateMs = null;
    }
    // A clear estimate settles it: no step, or one the usual estimates must confirm (another path).
    this.stepping = 0;
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
