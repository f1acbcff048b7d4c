/**
 * From wake-word scores to detections: the threshold, the refractory period, and where the wake
 * word ended. Pure: no I/O, no timers; time is the stream time of the steps it is given.
 *
 * A classifier's score crosses the threshold anywhere from just before the wake word ends to
 * half a second after (it depends on the voice), so the crossing alone cannot say where a command
 * said in the same breath begins. The pause people make after a wake word can: the decider looks
 * for the first quiet stretch since the score began to rise, waiting up to `endWaitMs` after the
 * crossing for it, and falls back to a typical latency when there is none (one unbroken breath).
 */

/** A wake word heard: which model, how sure, and where in the stream. */
export interface WakeWordDetection {
  /** The model's name (`hey_jarvis`, or a custom model's file name), or a class of a multi-class model. */
  model: string;
  /** The highest score (0..1) while the wake word was being heard. */
  score: number;
  /** Stream time (ms of audio pushed since the detector started) when the detection was made. */
  atMs: number;
  /** Estimated stream time where the wake word ended: a command said after it starts here. Never after `atMs`. */
  endMs: number;
}

/** Every model's score for one step of audio (40 ms; openWakeWord: 80 ms), for meters and tuning. */
export interface WakeWordScores {
  /** Stream time at the end of the step. */
  atMs: number;
  scores: Record<string, number>;
}

export interface WakeDeciderConfig {
  /** Score (0..1) at which a wake word counts as heard. */
  threshold: number;
  /** After a detection, no other for this long. */
  refractoryMs: number;
  /** Longest wait after the crossing for the pause that ends the wake word. */
  endWaitMs: number;
}

/** One scored step of audio, with the loudness of its spectral frames (log scale, any offset). */
export interface WakeStep {
  /** Stream time at the end of the step. */
  endMs: number;
  /** One score per label, in the decider's label order. */
  scores: ArrayLike<number>;
  loudness: ArrayLike<number>;
  /** Stream time of the first loudness frame's centre, and the spacing of the frames. */
  firstFrameMs: number;
  frameMs: number;
}

/**
 * A stretch at least this long and this quiet (a fifth of the way from the noise floor to the
 * speech peak, so that a soft "s" at the end of a wake word still counts as the word) is a pause.
 */
const PAUSE_MS = 60;
const QUIET_FRACTION = 0.2;
const FLOOR_WINDOW_MS = 3000;
const PEAK_WINDOW_MS = 1500;
/**
 * The wake word ends at most RISE_LEAD_MS before its score first reached RISE_SCORE, looking
 * back at most LOOKBACK_MS from the crossing (a command said at once can hold the score down
 * for a while after the wake word).
 */
const RISE_SCORE = 0.1;
const RISE_LEAD_MS = 80;
const LOOKBACK_MS = 800;
/** With no pause (one unbroken breath), the end is put this long before the crossing. */
const FALLBACK_LATENCY_MS = 200;

interface Pending {
  label: number;
  score: number;
  crossedAtMs: number;
  searchFromMs: number;
}

export class WakeDecider {
  private readonly frames: { atMs: number; level: number }[] = [];
  private readonly recent: { endMs: number; scores: ArrayLike<number> }[] = [];
  private pending: Pending | undefined;
  private blockedUntilMs = -Infinity;

  constructor(
    private readonly labels: readonly string[],
    private readonly config: WakeDeciderConfig,
  ) {}

  push(step: WakeStep): WakeWordDetection[] {
    this.remember(step);
    if (!this.pending && step.endMs >= this.blockedUntilMs) this.pending = this.crossing(step);
    const pending = this.pending;
    if (!pending) return [];
    pending.score = Math.max(pending.score, step.scores[pending.label] ?? 0);
    const pauseMs = this.pauseFrom(pending.searchFromMs);
    if (pauseMs === undefined && step.endMs - pending.crossedAtMs < this.config.endWaitMs) return [];
    this.pending = undefined;
    this.blockedUntilMs = step.endMs + this.config.refractoryMs;
    const endMs = pauseMs ?? Math.max(pending.searchFromMs, pending.crossedAtMs - FALLBACK_LATENCY_MS);
    return [
      {
        model: this.labels[pending.label] as string,
        score: pending.score,
        atMs: step.endMs,
        endMs: Math.min(endMs, step.endMs),
      },
    ];
  }

  /** Stream time before which no step can start a detection: the refractory period after the last one. */
  get quietUntilMs(): number {
    return this.blockedUntilMs;
  }

  reset(): void {
    this.frames.length = 0;
    this.recent.length = 0;
    this.pending = undefined;
    this.blockedUntilMs = -Infinity;
  }

  private remember(step: WakeStep): void {
    for (let i = 0; i < step.loudness.length; i++) {
      this.frames.push({ atMs: step.firstFrameMs + i * step.frameMs, level: step.loudness[i] ?? 0 });
    }
    const oldest = step.endMs - FLOOR_WINDOW_MS;
    let drop = 0;
    while (drop < this.frames.length && (this.frames[drop]?.atMs ?? 0) < oldest) drop++;
    if (drop) this.frames.splice(0, drop);
    this.recent.push({ endMs: step.endMs, scores: Array.from(step.scores) });
    while ((this.recent[0]?.endMs ?? Infinity) < step.endMs - LOOKBACK_MS) this.recent.shift();
  }

  /** The label that crossed the threshold with the highest score, if any. */
  private crossing(step: WakeStep): Pending | undefined {
    let best: number | undefined;
    this.labels.forEach((_, i) => {
      const score = step.scores[i] ?? 0;
      if (score >= this.config.threshold && (best === undefined || score > (step.scores[best] ?? 0))) best = i;
    });
    if (best === undefined) return undefined;
    const label = best;
    const rise = this.recent.find((r) => (r.scores[label] ?? 0) >= RISE_SCORE) ?? step;
    return {
      label,
      score: step.scores[label] ?? 0,
      crossedAtMs: step.endMs,
      searchFromMs: Math.max(step.endMs - LOOKBACK_MS, rise.endMs - RISE_LEAD_MS),
    };
  }

  /** Where the first pause at or after `fromMs` begins, once it has lasted PAUSE_MS. */
  private pauseFrom(fromMs: number): number | undefined {
    const frames = this.frames;
    if (frames.length < 2) return undefined;
    const frameMs = (frames[1] as { atMs: number }).atMs - (frames[0] as { atMs: number }).atMs;
    const newest = (frames.at(-1) as { atMs: number }).atMs;
    const floor = quantile(
      frames.map((f) => f.level),
      0.1,
    );
    const peak = quantile(
      frames.filter((f) => f.atMs >= newest - PEAK_WINDOW_MS).map((f) => f.level),
      0.9,
    );
    const quiet = floor + QUIET_FRACTION * (peak - floor);
    let runStart: number | undefined;
    for (const frame of frames) {
      if (frame.atMs < fromMs) continue;
      if (frame.level >= quiet) {
        runStart = undefined;
        continue;
      }
      runStart ??= frame.atMs;
      if (frame.atMs - runStart + frameMs >= PAUSE_MS) return runStart - frameMs / 2;
    }
    return undefined;
  }
}

function quantile(values: number[], q: number): number {
  const sorted = values.sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
}
