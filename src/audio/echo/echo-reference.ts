/**
 * What the speaker played and when: every chunk written to the player, placed on the
 * monotonic clock at the instant the player's clock says it starts to sound, read back at
 * 16 kHz for any stretch of time (zeros where nothing played). Pure: times are given, never read.
 */
export interface EchoReferenceOptions {
  /** Rate of what `read` returns. */
  sampleRateHz: number;
  /** How far back reads may reach, ms (the longest echo delay plus the estimator's window, with room to spare). */
  historyMs: number;
}

interface Run {
  rateHz: number;
  /** When the first sample sounds, ms. */
  startMs: number;
  /** Room to grow: only the first `length` samples are audio. */
  samples: Int16Array;
  length: number;
  /** Which of the player's streams it is (see `streamAt`). */
  stream: number;
}

/** A chunk that starts within this of where the last one ends continues it, sample for sample, ms. */
const CONTINUITY_MS = 2;
/** Half-width of the interpolation kernel, in source samples. */
const TAPS = 8;
/** Kernel table steps per source sample. */
const STEPS = 256;

export class EchoReference {
  private runs: Run[] = [];
  private readonly kernels = new Map<number, Float64Array>();
  private latestReadMs = -Infinity;
  private streams = 0;

  constructor(readonly options: EchoReferenceOptions) {}

  /** `pcm` at `rateHz` will sound from `startMs` on. A chunk written over audio not yet played replaces it. */
  write(pcm: Int16Array, rateHz: number, startMs: number): void {
    if (pcm.length === 0) return;
    const last = this.runs.at(-1);
    if (last && last.rateHz === rateHz && Math.abs(endMs(last) - startMs) <= CONTINUITY_MS) {
      append(last, pcm);
      return;
    }
    this.drop(startMs);
    this.runs.push({ rateHz, startMs, samples: Int16Array.from(pcm), length: pcm.length, stream: ++this.streams });
  }

  /** The player dropped everything that had not sounded by `atMs`. */
  drop(atMs: number): void {
    this.runs = this.runs.filter((run) => run.startMs < atMs);
    for (const run of this.runs)
      run.length = Math.min(run.length, Math.floor(((atMs - run.startMs) / 1000) * run.rateHz));
  }

  /**
   * Which stream of the player's sounds at `atMs`, or last did: a chunk that does not continue
   * the one before (the player ran dry between sentences, or resumed after a pause) starts a new
   * one, which a device or sound server may play with another latency. 0 before any.
   */
  streamAt(atMs: number): number {
    let stream = 0;
    for (const run of this.runs) if (run.startMs <= atMs) stream = run.stream;
    return stream;
  }

  /** Whether anything sounds in [fromMs, toMs). */
  playing(fromMs: number, toMs: number): boolean {
    return this.runs.some((run) => run.startMs < toMs && endMs(run) > fromMs);
  }

  /** `samples` at the output rate of what sounded from `startMs` on. */
  read(startMs: number, samples: number): Int16Array {
    const out = new Float64Array(samples);
    const rate = this.options.sampleRateHz;
    const toMs = startMs + (samples / rate) * 1000;
    for (const run of this.runs) {
      if (run.startMs >= toMs + 1 || endMs(run) <= startMs - 1) continue;
      const kernel = this.kernel(run.rateHz);
      const ratio = run.rateHz / rate;
      const first = ((startMs - run.startMs) / 1000) * run.rateHz;
      for (let k = 0; k < samples; k++) {
        const x = first + k * ratio;
        if (x < -TAPS || x > run.length + TAPS) continue;
        out[k] = (out[k] as number) + interpolate(run, x, kernel);
      }
    }
    if (startMs > this.latestReadMs) {
      this.latestReadMs = startMs;
      this.prune(startMs - this.options.historyMs);
    }
    const pcm = new Int16Array(samples);
    for (let k = 0; k < samples; k++) pcm[k] = Math.max(-32768, Math.min(32767, Math.round(out[k] as number)));
    return pcm;
  }

  private prune(beforeMs: number): void {
    this.runs = this.runs.filter((run) => endMs(run) > beforeMs);
    for (const run of this.runs) {
      const stale = Math.floor(((beforeMs - run.startMs) / 1000) * run.rateHz) - TAPS;
      // Compact only when most of a run is stale, so long replies are not copied on every read.
      if (stale > run.length / 2) {
        run.samples = run.samples.slice(stale, run.length);
        run.startMs += (stale / run.rateHz) * 1000;
        run.length -= stale;
      }
    }
  }

  /** Windowed sinc, low-passed below the output's Nyquist frequency when the source rate is higher. */
  private kernel(rateHz: number): Float64Array {
    let table = this.kernels.get(rateHz);
    if (!table) {
      const cutoff = rateHz > this.options.sampleRateHz ? (this.options.sampleRateHz / rateHz) * 0.92 : 1;
      table = new Float64Array(TAPS * STEPS + 1);
      for (let i = 0; i <= TAPS * STEPS; i++) {
        const d = i / STEPS;
        const sinc = d === 0 ? 1 : Math.sin(Math.PI * cutoff * d) / (Math.PI * cutoff * d);
        table[i] = cutoff * sinc * (0.5 + 0.5 * Math.cos((Math.PI * d) / TAPS));
      }
      this.kernels.set(rateHz, table);
    }
    return table;
  }
}

function endMs(run: Run): number {
  return run.startMs + (run.length / run.rateHz) * 1000;
}

function append(run: Run, pcm: Int16Array): void {
  if (run.length + pcm.length > run.samples.length) {
    const grown = new Int16Array(Math.max(run.length + pcm.length, run.length * 2));
    grown.set(run.samples.subarray(0, run.length));
    run.samples = grown;
  }
  run.samples.set(pcm, run.length);
  run.length += pcm.length;
}

/**
 * The run's signal at fractional position `x` (in samples of `run.samples`). The kernel is read
 * at distances |x - i| rounded to its steps: for the taps at and before `x` that is the rounding
 * of the fraction plus whole samples, for those after it whole samples less it, so each side
 * walks the table in strides of STEPS (this runs for every sample read, twice a frame).
 */
function interpolate(run: Run, x: number, kernel: Float64Array): number {
  const base = Math.floor(x);
  const fraction = (x - base) * STEPS;
  const { samples, length } = run;
  let sum = 0;
  // At and before x: distances fraction, fraction + 1, ... (all below TAPS).
  const before = Math.min(base, length - 1);
  for (let i = before, at = Math.round(fraction) + (base - before) * STEPS; i > base - TAPS && i >= 0; i--, at += STEPS)
    sum += (samples[i] as number) * (kernel[at] as number);
  // After x: distances 1 - fraction, 2 - fraction, ...; a distance of TAPS (x on a sample) is the kernel's zero.
  const after = Math.max(base + 1, 0);
  for (
    let i = after, at = (after - base) * STEPS + Math.round(-fraction);
    i <= base + TAPS && i < length;
    i++, at += STEPS
  )
    if (at < TAPS * STEPS) sum += (samples[i] as number) * (kernel[at] as number);
  return sum;
}
