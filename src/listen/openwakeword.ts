import type * as Ort from 'onnxruntime-node';
import { Subject, type Observable } from 'rxjs';
import { SpeexDenoiser } from '../audio/speex-denoiser.js';
import { classify, loadClassifier, type WakeClassifier } from './wake-classifiers.js';
import { WakeDecider, type WakeDeciderConfig, type WakeWordDetection, type WakeWordScores } from './wake-decider.js';
import {
  EMBEDDING_SIZE,
  EMBEDDING_STRIDE_SAMPLES,
  firstFrameBeforeEndMs,
  MEL_FRAME_MS,
  WAKE_SAMPLE_RATE_HZ,
  WAKE_STEP_SAMPLES,
  WakeFeatures,
} from './wake-features.js';
import { resolveWakeModels, type WakeModelFile, type WakeModelFiles } from './wake-models.js';

export interface OpenWakeWordOptions extends WakeDeciderConfig {
  /** Names of the package's models (`hey_jarvis`) or paths to .onnx files. */
  models: readonly string[];
  /** The package's models directory (tests point it elsewhere). */
  modelsDir?: string;
  /** Score every 40 ms (default) or, as openWakeWord, 80 ms: half the CPU, more dependent on where steps fall. */
  stepMs?: 40 | 80;
  /**
   * Most steps scored in one batch when audio has piled up (a file, a busy moment). Each
   * batch's embedding run holds the event loop: keep it small for live audio.
   */
  maxBatchSteps?: number;
  /**
   * Live use: audio waiting to be scored beyond this is dropped (oldest first; a wake word heard
   * that late is no use), so a starved CPU cannot make the queue grow without end. None for files.
   */
  maxBacklogMs?: number;
  /** Take steady noise out of the audio before the features (speexdsp's suppressor, as openWakeWord offers). */
  denoise?: boolean;
  /** A step scoring at least this has the windows halfway between steps scored for a while (default 0.1; Infinity: never). */
  lookCloserAt?: number;
}

/** Single-threaded and fully optimised: hark shares a small CPU with the VAD and the player. */
const SESSION_OPTIONS: Ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};
/** Scores of the first 400 ms after a start are not trusted (as openWakeWord does): the windows hold little real audio. */
const WARMUP_SAMPLES = 5 * EMBEDDING_STRIDE_SAMPLES;
const MS_PER_SAMPLE = 1000 / WAKE_SAMPLE_RATE_HZ;
/**
 * The denoiser: 10 ms frames (1280-sample steps hold 8), noise taken down by at most 30 dB. On
 * espeak-ng clips in pink noise, -30 dB missed fewer than speexdsp's default -15 dB.
 */
const DENOISE = { sampleRateHz: WAKE_SAMPLE_RATE_HZ, frameSamples: 160, suppressDb: -30 } as const;
/**
 * In noise a wake word's score depends much on where the steps fall (10 ms moved 0.99 to 0.26).
 * A step scoring over LOOK_CLOSER_AT is a wake word perhaps: for CLOSER_MS after it, the windows
 * ending halfway between steps are scored too (two more interleaved streams, computed only then),
 * and a step's score is the higher of its own and the one half a step before it.
 */
const LOOK_CLOSER_AT = 0.1;
const CLOSER_MS = 480;

/**
 * openWakeWord through onnxruntime-node: the models are loaded once, audio is buffered by `push`
 * and scored by one loop of awaited inference runs, so the caller (the microphone, the VAD)
 * never waits for it, and each run yields the event loop.
 */
export class OpenWakeWord {
  readonly models: readonly string[];
  private readonly detections$ = new Subject<WakeWordDetection>();
  private readonly scores$ = new Subject<WakeWordScores>();
  readonly detections: Observable<WakeWordDetection> = this.detections$.asObservable();
  readonly scores: Observable<WakeWordScores> = this.scores$.asObservable();
  private readonly decider: WakeDecider;
  private readonly stepSamples: number;
  /** Steps between the embeddings a classifier reads (2 at 40 ms: two interleaved streams 80 ms apart). */
  private readonly stride: number;
  /** The last embeddings, one per step, enough for the classifier that reads the most. */
  private readonly historyFrames: number;
  /** The most embeddings any classifier reads. */
  private readonly classifierFrames: number;
  private history: Float32Array;
  private readonly warmupSteps: number;
  private queue: Int16Array[] = [];
  private queued = 0;
  /** Stream position (samples) of the first queued sample, and of the next one pushed. */
  private scoredSamples = 0;
  private pushedSamples = 0;
  private droppedSamples = 0;
  private warmup: number;
  private running: Promise<void> | undefined;
  /** Steps scored since the last reset; embeddings halfway before a step, by that step's number. */
  private step = 0;
  private readonly halfway = new Map<number, Float32Array>();
  private closerUntilStep = -1;
  private readonly closerSteps: number;
  private resetWanted = false;
  private failure: unknown;
  private closed = false;

  private constructor(
    private readonly ort: typeof Ort,
    private readonly features: WakeFeatures,
    private readonly sessions: Ort.InferenceSession[],
    private readonly classifiers: WakeClassifier[],
    private readonly options: OpenWakeWordOptions,
    /** The model files loaded, and where each came from. */
    readonly files: readonly WakeModelFile[],
    private readonly denoiser: SpeexDenoiser | undefined,
    /** Why the denoiser asked for could not load (the detector then scores the audio as it is). */
    readonly denoiseError: string | undefined,
  ) {
    this.models = classifiers.flatMap((c) => c.labels);
    this.decider = new WakeDecider(this.models, options);
    this.stepSamples = features.stepSamples;
    this.stride = EMBEDDING_STRIDE_SAMPLES / this.stepSamples;
    this.classifierFrames = mostFrames(classifiers);
    this.historyFrames = (this.classifierFrames - 1) * this.stride + 1;
    this.history = new Float32Array(this.historyFrames * EMBEDDING_SIZE);
    this.warmupSteps = WARMUP_SAMPLES / this.stepSamples;
    this.warmup = this.warmupSteps;
    this.closerSteps = Math.ceil(CLOSER_MS / (this.stepSamples * MS_PER_SAMPLE));
  }

  /** Loads every model once; throws `WakeModelsMissingError` when they are not there. */
  static async load(
    options: OpenWakeWordOptions,
    files: WakeModelFiles = resolveWakeModels(options.models, options.modelsDir),
  ): Promise<OpenWakeWord> {
    const ort = await import('onnxruntime-node');
    const sessions: Ort.InferenceSession[] = [];
    try {
      const melspectrogram = await ort.InferenceSession.create(files.melspectrogram, SESSION_OPTIONS);
      sessions.push(melspectrogram);
      const embedding = await ort.InferenceSession.create(files.embedding, SESSION_OPTIONS);
      sessions.push(embedding);
      const classifiers: WakeClassifier[] = [];
      for (const file of files.classifiers) {
        const classifier = await loadClassifier(ort, file, SESSION_OPTIONS);
        sessions.push(classifier.session);
        classifiers.push(classifier);
      }
      const stepSamples = options.stepMs === undefined ? WAKE_STEP_SAMPLES : options.stepMs / MS_PER_SAMPLE;
      const features = new WakeFeatures(ort, melspectrogram, embedding, stepSamples, mostFrames(classifiers));
      let denoiser: SpeexDenoiser | undefined;
      let denoiseError: string | undefined;
      if (options.denoise) {
        try {
          denoiser = await SpeexDenoiser.load(DENOISE);
        } catch (error) {
          denoiseError = (error as Error).message;
        }
      }
      return new OpenWakeWord(ort, features, sessions, classifiers, options, files.classifiers, denoiser, denoiseError);
    } catch (error) {
      await Promise.all(sessions.map((s) => s.release()));
      throw error;
    }
  }

  push(frame: Int16Array): void {
    // After close or a failed inference (its streams have errored), audio is not kept.
    if (this.closed || this.failure !== undefined) return;
    this.pushedSamples += frame.length;
    this.queue.push(frame.slice());
    this.queued += frame.length;
    const backlog = this.options.maxBacklogMs;
    if (backlog !== undefined && this.queued > backlog / MS_PER_SAMPLE) this.shed(Math.round(backlog / MS_PER_SAMPLE));
    if (this.queued >= this.stepSamples && !this.running) {
      this.running = this.pump().finally(() => (this.running = undefined));
    }
  }

  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  reset(): void {
    this.queue = [];
    this.queued = 0;
    this.scoredSamples = this.pushedSamples;
    if (this.running) this.resetWanted = true;
    else this.resetState();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.queued = 0;
    await this.drain();
    await Promise.all(this.sessions.map((s) => s.release()));
    this.denoiser?.close();
    this.detections$.complete();
    this.scores$.complete();
  }

  /** Whether the audio is denoised before it is scored. */
  get denoising(): boolean {
    return this.denoiser !== undefined;
  }

  /** Audio dropped unscored because it piled up beyond `maxBacklogMs`. */
  get droppedMs(): number {
    return this.droppedSamples * MS_PER_SAMPLE;
  }

  /** Drops the oldest queued audio down to `keep` samples; what follows the gap starts afresh. */
  private shed(keep: number): void {
    let excess = this.queued - keep;
    while (excess > 0) {
      const head = this.queue[0] as Int16Array;
      const n = Math.min(head.length, excess);
      if (n === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(n);
      excess -= n;
      this.queued -= n;
      this.scoredSamples += n;
      this.droppedSamples += n;
    }
    if (this.running) this.resetWanted = true;
    else this.resetState();
  }

  private resetState(): void {
    this.step = 0;
    this.halfway.clear();
    this.closerUntilStep = -1;
    this.features.reset();
    this.decider.reset();
    this.denoiser?.reset();
    this.warmup = this.warmupSteps;
    this.resetWanted = false;
  }

  /** Scores queued steps until none is left; the one loop that runs inference. */
  private async pump(): Promise<void> {
    try {
      while (this.queued >= this.stepSamples && !this.closed) {
        const steps = Math.min(Math.floor(this.queued / this.stepSamples), this.options.maxBatchSteps ?? 128);
        const startSample = this.scoredSamples;
        const samples = this.take(steps * this.stepSamples);
        await this.score(samples, startSample, steps);
      }
    } catch (error) {
      this.failure = error;
      this.detections$.error(error);
      this.scores$.error(error);
    }
  }

  private take(count: number): Int16Array {
    const out = new Int16Array(count);
    let at = 0;
    while (at < count) {
      const head = this.queue[0] as Int16Array;
      const n = Math.min(head.length, count - at);
      out.set(head.subarray(0, n), at);
      at += n;
      if (n === head.length) this.queue.shift();
      else this.queue[0] = head.subarray(n);
    }
    this.queued -= count;
    this.scoredSamples += count;
    return out;
  }

  private async score(raw: Int16Array, startSample: number, steps: number): Promise<void> {
    // The denoised audio lags the pushed audio: its steps end that much earlier in stream time.
    const samples = this.denoiser ? this.denoiser.process(raw) : raw;
    const lagMs = (this.denoiser?.latencySamples ?? 0) * MS_PER_SAMPLE;
    const { embeddings, fresh, loudness } = await this.features.steps(samples);
    const framesPerStep = loudness.length / steps;
    if (fresh) {
      for (let f = 0; f < this.historyFrames; f++)
        this.history.set(embeddings.subarray(0, EMBEDDING_SIZE), f * EMBEDDING_SIZE);
    }
    for (let s = 0; s < steps; s++) {
      if (this.resetWanted) return this.resetState();
      if (this.closed) return;
      this.history.copyWithin(0, EMBEDDING_SIZE);
      this.history.set(
        embeddings.subarray(s * EMBEDDING_SIZE, (s + 1) * EMBEDDING_SIZE),
        this.history.length - EMBEDDING_SIZE,
      );
      const scores = await this.classifyAll((frames) => this.classifierInput(frames));
      const step = this.step++;
      if (scores.some((score) => score >= (this.options.lookCloserAt ?? LOOK_CLOSER_AT))) {
        this.closerUntilStep = step + this.closerSteps;
      }
      if (step <= this.closerUntilStep) {
        const halfway = await this.halfwayScores(step, steps - 1 - s);
        for (let i = 0; i < scores.length; i++) scores[i] = Math.max(scores[i] as number, halfway[i] as number);
      }
      if (this.resetWanted) return this.resetState();
      if (this.warmup > 0) {
        this.warmup--;
        scores.fill(0);
      }
      const endMs = (startSample + (s + 1) * this.stepSamples) * MS_PER_SAMPLE - lagMs;
      this.scores$.next({ atMs: endMs, scores: Object.fromEntries(this.models.map((m, i) => [m, scores[i] ?? 0])) });
      const found = this.decider.push({
        endMs,
        scores,
        loudness: loudness.subarray(s * framesPerStep, (s + 1) * framesPerStep),
        firstFrameMs: endMs - firstFrameBeforeEndMs(this.stepSamples),
        frameMs: MEL_FRAME_MS,
      });
      // A detection is made once the pushed audio has reached the step's end (with the lag).
      for (const detection of found) this.detections$.next({ ...detection, atMs: detection.atMs + lagMs });
    }
    if (this.resetWanted) this.resetState();
  }

  /** Every model's scores on the classifier inputs `input` gives for each classifier's number of frames. */
  private async classifyAll(input: (frames: number) => Float32Array): Promise<Float32Array> {
    const scores = new Float32Array(this.models.length);
    let offset = 0;
    for (const classifier of this.classifiers) {
      await classify(this.ort, classifier, input(classifier.frames), scores, offset);
      offset += classifier.labels.length;
    }
    return scores;
  }

  /**
   * Every model's scores on the stream of windows that end halfway before `step` and 80 ms apart
   * before that; `stepsToNewest` is how many steps of the last batch follow it. Embeddings not
   * computed yet are computed in one batch.
   */
  private async halfwayScores(step: number, stepsToNewest: number): Promise<Float32Array> {
    const frames = this.classifierFrames;
    const wanted = Array.from({ length: frames }, (_, i) => step - i * this.stride);
    const missing = wanted.filter((n) => !this.halfway.has(n));
    if (missing.length > 0) {
      const embeddings = await this.features.halfwayBefore(missing.map((n) => step - n + stepsToNewest));
      missing.forEach((n, i) => this.halfway.set(n, embeddings.subarray(i * EMBEDDING_SIZE, (i + 1) * EMBEDDING_SIZE)));
    }
    for (const n of this.halfway.keys()) if (n <= step - frames * this.stride) this.halfway.delete(n);
    return this.classifyAll((count) => {
      const input = new Float32Array(count * EMBEDDING_SIZE);
      for (let i = 0; i < count; i++)
        input.set(this.halfway.get(step - (count - 1 - i) * this.stride) as Float32Array, i * EMBEDDING_SIZE);
      return input;
    });
  }

  /** The newest embedding and the `frames - 1` before it at 80 ms spacing: one of the interleaved streams. */
  private classifierInput(frames: number): Float32Array {
    const input = new Float32Array(frames * EMBEDDING_SIZE);
    for (let i = 0; i < frames; i++) {
      const from = this.historyFrames - 1 - (frames - 1 - i) * this.stride;
      input.set(this.history.subarray(from * EMBEDDING_SIZE, (from + 1) * EMBEDDING_SIZE), i * EMBEDDING_SIZE);
    }
    return input;
  }
}

function mostFrames(classifiers: readonly WakeClassifier[]): number {
  return Math.max(...classifiers.map((c) => c.frames));
}
