import { classify, type WakeClassifier } from './wake-classifiers.js';
import {
  EMBEDDING_SIZE,
  EMBEDDING_STRIDE_SAMPLES,
  FINE_FRAMES,
  WAKE_SAMPLE_RATE_HZ,
  type WakeFeatures,
} from './wake-features.js';
import type { PaceWork } from './wake-pace.js';

/** Scores of the first 400 ms of a stretch are not trusted (as openWakeWord does): the windows hold little real audio. */
const WARMUP_SAMPLES = 5 * EMBEDDING_STRIDE_SAMPLES;
/**
 * In noise a wake word's score depends much on where the steps fall (10 ms moved 0.99 to 0.26).
 * A step scoring at least `lookCloserAt` is a wake word perhaps: for CLOSER_MS after it, windows
 * ending between steps are scored too (further interleaved streams, computed only then), and a
 * step's score is the highest of its own and theirs.
 */
const CLOSER_MS = 480;
/** Windows between steps computed at a time: all of a wake word's at once held a small board's thread for half a second. */
const BETWEEN_BATCH = 4;

/** How many of the last steps' embeddings the classifier that reads the most needs, at this step size. */
export function historySteps(classifiers: readonly WakeClassifier[], stepSamples: number): number {
  const frames = Math.max(...classifiers.map((c) => c.frames));
  return (frames - 1) * (EMBEDDING_STRIDE_SAMPLES / stepSamples) + 1;
}

/** One step: every model's score (absent for a step only heard), and the loudness of its spectral frames. */
export interface ScoredStep {
  scores: Float32Array | undefined;
  loudness: Float32Array;
}

/**
 * openWakeWord's scoring of one unbroken stretch of audio at one step size: its features, the
 * embeddings each classifier reads (80 ms apart: at 40 ms steps, from whichever of two
 * interleaved streams has just got a new one), and, near a wake word, the windows halfway
 * between steps. A new stretch (after quiet, or at another step size) gets a new scorer.
 */
export class WakeScorer {
  /** Steps between the embeddings a classifier reads (1 at 80 ms, 2 at 40 ms). */
  private readonly stride: number;
  private readonly classifierFrames: number;
  /** How many of the last steps' embeddings are kept: enough for the classifier that reads the most. */
  readonly historySteps: number;
  private history: Float32Array;
  /** Embeddings of windows ending between steps, by step and offset (`step:frames`). */
  private readonly between = new Map<string, Float32Array>();
  /** How far before a step's end (mel frames) each stream of windows between steps ends. */
  private offsets: number[] = [];
  private closerUntilStep = -1;
  /** Steps up to this one cannot make a detection (see `calm`): none is looked at closer. */
  private calmUntilStep = -1;
  private readonly closerSteps: number;
  private readonly warmupSteps: number;
  /** Steps given since the stretch began (heard only or scored). */
  private step = 0;
  /** Whether an embedding has been computed yet: the first fills the history of those before the stretch. */
  private embedded = false;
  private readonly labels: number;

  constructor(
    private readonly features: WakeFeatures,
    private readonly classifiers: readonly WakeClassifier[],
    /** A step scoring at least this has the windows between steps scored for a while (Infinity: never). */
    private readonly lookCloserAt: number,
    /** Which windows between steps: all (every 20 ms), halfway, or none. */
    between: PaceWork['between'],
    /** Lets the thread's other work run between batches of windows (near a wake word, dozens at once). */
    private readonly giveWay: () => Promise<void>,
    /**
     * The first steps of the stretch: the moments before a sound (quiet). Their features are kept
     * for the windows of the steps after them, only those the classifiers will read get an
     * embedding, and none is scored.
     */
    private readonly heardOnly = 0,
  ) {
    const stepSamples = features.stepSamples;
    this.stride = EMBEDDING_STRIDE_SAMPLES / stepSamples;
    this.classifierFrames = Math.max(...classifiers.map((c) => c.frames));
    this.historySteps = historySteps(classifiers, stepSamples);
    this.history = new Float32Array(this.historySteps * EMBEDDING_SIZE);
    this.warmupSteps = WARMUP_SAMPLES / stepSamples;
    this.closerSteps = Math.ceil((CLOSER_MS * WAKE_SAMPLE_RATE_HZ) / 1000 / stepSamples);
    this.labels = classifiers.reduce((sum, c) => sum + c.labels.length, 0);
    this.lookBetween(between);
  }

  /** Which windows between steps are scored from now on (the detector's pace changed). */
  lookBetween(between: PaceWork['between']): void {
    const stepFrames = (this.stepSamples / WAKE_SAMPLE_RATE_HZ) * 100;
    const all = Array.from({ length: stepFrames / FINE_FRAMES - 1 }, (_, i) => (i + 1) * FINE_FRAMES);
    this.offsets = between === 'all' ? all : between === 'halfway' ? [stepFrames / 2] : [];
  }

  get stepSamples(): number {
    return this.features.stepSamples;
  }

  /**
   * Scores `samples`, whole steps that follow those given before (in as many calls as suit the
   * caller: the stretch's steps score the same). Stops early (fewer steps out) when `stop` says
   * so between steps.
   */
  async next(samples: Int16Array, stop: () => boolean): Promise<ScoredStep[]> {
    const steps = samples.length / this.stepSamples;
    const heardOnly = Math.max(0, this.heardOnly - this.step);
    const embedFrom = Math.max(0, heardOnly - this.historySteps + 1);
    const { embeddings, loudness } = await this.features.steps(samples, embedFrom);
    const framesPerStep = loudness.length / steps;
    if (!this.embedded && embeddings.length > 0) {
      for (let f = 0; f < this.historySteps; f++)
        this.history.set(embeddings.subarray(0, EMBEDDING_SIZE), f * EMBEDDING_SIZE);
      this.embedded = true;
    }
    const out: ScoredStep[] = [];
    for (let s = 0; s < steps; s++) {
      if (stop()) break;
      const stepLoudness = loudness.subarray(s * framesPerStep, (s + 1) * framesPerStep);
      if (s >= embedFrom) {
        const e = s - embedFrom;
        this.history.copyWithin(0, EMBEDDING_SIZE);
        this.history.set(
          embeddings.subarray(e * EMBEDDING_SIZE, (e + 1) * EMBEDDING_SIZE),
          this.history.length - EMBEDDING_SIZE,
        );
      }
      const step = this.step++;
      if (s < heardOnly) {
        out.push({ scores: undefined, loudness: stepLoudness });
        continue;
      }
      const scores = await this.classifyAll((frames) => this.classifierInput(frames));
      if (step > this.calmUntilStep && scores.some((score) => score >= this.lookCloserAt))
        this.closerUntilStep = step + this.closerSteps;
      if (step <= this.closerUntilStep && step > this.calmUntilStep && this.offsets.length > 0) {
        const closer = await this.scoresBetween(step, steps - 1 - s);
        for (let i = 0; i < scores.length; i++) scores[i] = Math.max(scores[i] as number, closer[i] as number);
      }
      if (step < this.warmupSteps) scores.fill(0);
      out.push({ scores, loudness: stepLoudness });
    }
    return out;
  }

  /**
   * The next `steps` steps cannot make a detection (the decider's refractory period after one):
   * they are scored at their steps alone, as the windows between steps would change nothing.
   */
  calm(steps: number): void {
    this.calmUntilStep = Math.max(this.calmUntilStep, this.step - 1 + steps);
    this.closerUntilStep = Math.min(this.closerUntilStep, this.step - 1);
  }

  /** Every model's scores on the classifier inputs `input` gives for each classifier's number of frames. */
  private async classifyAll(input: (frames: number) => Float32Array): Promise<Float32Array> {
    const scores = new Float32Array(this.labels);
    let offset = 0;
    for (const classifier of this.classifiers) {
      await classify(classifier, input(classifier.frames), scores, offset);
      offset += classifier.labels.length;
    }
    return scores;
  }

  /**
   * Every model's highest score on the streams of windows that end between `step` and the step
   * before, 80 ms apart before that; `stepsToNewest` is how many steps of the last batch follow
   * it. Embeddings not computed yet are computed oldest first, a few at a time, giving way between.
   */
  private async scoresBetween(step: number, stepsToNewest: number): Promise<Float32Array> {
    const frames = this.classifierFrames;
    const key = (n: number, offset: number): string => `${n}:${offset}`;
    let batches = 0;
    for (const offset of this.offsets) {
      const missing = Array.from({ length: frames }, (_, i) => step - (frames - 1 - i) * this.stride).filter(
        (n) => !this.between.has(key(n, offset)),
      );
      for (let from = 0; from < missing.length; from += BETWEEN_BATCH) {
        if (batches++ > 0) await this.giveWay();
        const batch = missing.slice(from, from + BETWEEN_BATCH);
        const embeddings = await this.features.windowsBefore(
          batch.map((n) => ({ stepsBefore: step - n + stepsToNewest, offsetFrames: offset })),
        );
        batch.forEach((n, i) =>
          this.between.set(key(n, offset), embeddings.subarray(i * EMBEDDING_SIZE, (i + 1) * EMBEDDING_SIZE)),
        );
      }
    }
    for (const k of this.between.keys())
      if (Number(k.split(':')[0]) <= step - frames * this.stride) this.between.delete(k);
    const best = new Float32Array(this.labels);
    for (const offset of this.offsets) {
      const scores = await this.classifyAll((count) => {
        const input = new Float32Array(count * EMBEDDING_SIZE);
        for (let i = 0; i < count; i++)
          input.set(
            this.between.get(key(step - (count - 1 - i) * this.stride, offset)) as Float32Array,
            i * EMBEDDING_SIZE,
          );
        return input;
      });
      for (let i = 0; i < best.length; i++) best[i] = Math.max(best[i] as number, scores[i] as number);
    }
    return best;
  }

  /** The newest embedding and the `frames - 1` before it at 80 ms spacing: one of the interleaved streams. */
  private classifierInput(frames: number): Float32Array {
    const input = new Float32Array(frames * EMBEDDING_SIZE);
    for (let i = 0; i < frames; i++) {
      const from = this.historySteps - 1 - (frames - 1 - i) * this.stride;
      input.set(this.history.subarray(from * EMBEDDING_SIZE, (from + 1) * EMBEDDING_SIZE), i * EMBEDDING_SIZE);
    }
    return input;
  }
}
