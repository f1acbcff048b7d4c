import type * as Ort from 'onnxruntime-node';
import { readFile } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import { Subject, type Observable } from 'rxjs';
import { SampleQueue } from '../../audio/sample-queue.js';
import { SpeexDenoiser } from '../../audio/speex-denoiser.js';
import { NnKernels } from '../nn-kernels.js';
import { MelNetwork } from './mel-network.js';
import { loadClassifier, type WakeClassifier } from './wake-classifiers.js';
import { WakeDecider, type WakeDeciderConfig, type WakeWordDetection, type WakeWordScores } from './wake-decider.js';
import { WakeEmbedding } from './wake-embedding.js';
import { WAKE_SAMPLE_RATE_HZ } from './wake-features.js';
import { WakeHearing } from './wake-hearing.js';
import { resolveWakeModels, WakeModelsMissingError, type WakeModelFile, type WakeModelFiles } from './wake-models.js';
import { WakePacer, type WakeBacklog, type WakePace } from './wake-pace.js';

export type { WakeBacklog };

export interface OpenWakeWordOptions extends WakeDeciderConfig {
  /** Names of the package's models (`hey_jarvis`) or paths to .onnx files. */
  models: readonly string[];
  /** The package's models directory (tests point it elsewhere). */
  modelsDir?: string;
  /** Steps of 80 ms (default, as openWakeWord) or 40 ms (twice the CPU; near a wake word both score as finely). */
  stepMs?: 40 | 80;
  /**
   * Most steps heard in one batch (default 128), the look-back at a sound's onset included: each
   * batch holds the thread, which other work (Silero's frames) gets between batches. Keep it
   * small for live audio.
   */
  maxBatchSteps?: number;
  /**
   * Live use: when audio waits to be scored, do less per step (see WakePace) until it has
   * caught up, and drop what waits beyond this (oldest first; said in `backlog`). None for files.
   */
  maxBacklogMs?: number;
  /** Take steady noise out of the audio before the features (speexdsp's suppressor, as openWakeWord offers). */
  denoise?: boolean;
  /** A step scoring at least this has the windows halfway between steps scored for a while (default 0.1; Infinity: never). */
  lookCloserAt?: number;
  /** Score every step, quiet or not (default: only while there is sound that could be a wake word). */
  everyStep?: boolean;
}

/** Single-threaded and fully optimised: hark shares a small CPU with the VAD and the player. */
const SESSION_OPTIONS: Ort.InferenceSession.SessionOptions = {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};
const MS_PER_SAMPLE = 1000 / WAKE_SAMPLE_RATE_HZ;
/**
 * The denoiser: 10 ms frames (1280-sample steps hold 8), noise taken down by at most 30 dB. On
 * espeak-ng clips in pink noise, -30 dB missed fewer than speexdsp's default -15 dB.
 */
const DENOISE = { sampleRateHz: WAKE_SAMPLE_RATE_HZ, frameSamples: 160, suppressDb: -30 } as const;
/**
 * openWakeWord on hark's kernels (onnxruntime-node for a model they do not run): the models are
 * loaded once, audio is buffered by `push` and scored by one loop, a batch of steps at a time
 * (`maxBatchSteps`, giving the thread back between batches), on the thread that pushes it. In
 * quiet it only keeps the last two seconds: at a sound it scores from them on (what the
 * classifiers' windows reach back over), so a wake word is scored as if every step had been.
 */
export class OpenWakeWord {
  readonly models: readonly string[];
  private readonly detections$ = new Subject<WakeWordDetection>();
  private readonly scores$ = new Subject<WakeWordScores>();
  private readonly backlog$ = new Subject<WakeBacklog>();
  readonly detections: Observable<WakeWordDetection> = this.detections$.asObservable();
  readonly scores: Observable<WakeWordScores> = this.scores$.asObservable();
  readonly backlog: Observable<WakeBacklog> = this.backlog$.asObservable();
  private readonly queue = new SampleQueue();
  private readonly hearing: WakeHearing;
  private readonly pacer = new WakePacer();
  private pace: WakePace = 'full';
  private droppedSamples = 0;
  private readonly stepSamples: number;
  private running: Promise<void> | undefined;
  private resetWanted = false;
  private failure: unknown;
  private closed = false;

  private constructor(
    private readonly features: { melspectrogram: MelNetwork; embedding: WakeEmbedding },
    private readonly classifiers: WakeClassifier[],
    private readonly options: OpenWakeWordOptions,
    /** The model files loaded, and where each came from. */
    readonly files: readonly WakeModelFile[],
    private readonly denoiser: SpeexDenoiser | undefined,
    /** Why the denoiser asked for could not load (the detector then scores the audio as it is). */
    readonly denoiseError: string | undefined,
  ) {
    this.models = classifiers.flatMap((c) => c.labels);
    this.stepSamples = (options.stepMs ?? 80) * (WAKE_SAMPLE_RATE_HZ / 1000);
    this.hearing = new WakeHearing(
      {
        ...features,
        classifiers,
        models: this.models,
        decider: new WakeDecider(this.models, options),
        denoiser,
        stepSamples: this.stepSamples,
        lookCloserAt: options.lookCloserAt,
        everyStep: options.everyStep === true,
        batchSteps: this.batchSteps,
        giveWay: () => setImmediate(),
      },
      { scores: (s) => this.scores$.next(s), detection: (d) => this.detections$.next(d) },
    );
  }

  /** Loads every model once; throws `WakeModelsMissingError` when they are not there. */
  static async load(
    options: OpenWakeWordOptions,
    files: WakeModelFiles = resolveWakeModels(options.models, options.modelsDir),
  ): Promise<OpenWakeWord> {
    // onnxruntime is loaded only for what hark does not run itself.
    let ort: typeof Ort | undefined;
    const loadOrt = async (): Promise<typeof Ort> => (ort ??= await import('onnxruntime-node'));
    const sessions: { release(): Promise<void> }[] = [];
    try {
      const melspectrogram = await loadMel(files.melspectrogram);
      const kernels = await NnKernels.load();
      const embedding = await WakeEmbedding.load(files.embedding, kernels, loadOrt, SESSION_OPTIONS);
      sessions.push(embedding);
      const classifiers: WakeClassifier[] = [];
      for (const file of files.classifiers) {
        const classifier = await loadClassifier(file, kernels, loadOrt, SESSION_OPTIONS);
        sessions.push(classifier);
        classifiers.push(classifier);
      }
      let denoiser: SpeexDenoiser | undefined;
      let denoiseError: string | undefined;
      if (options.denoise) {
        try {
          denoiser = await SpeexDenoiser.load(DENOISE);
        } catch (error) {
          denoiseError = (error as Error).message;
        }
      }
      return new OpenWakeWord(
        { melspectrogram, embedding },
        classifiers,
        options,
        files.classifiers,
        denoiser,
        denoiseError,
      );
    } catch (error) {
      await Promise.all(sessions.map((s) => s.release()));
      throw error;
    }
  }

  push(frame: Int16Array): void {
    // After close or a failed inference (its streams have errored), audio is not kept.
    if (this.closed || this.failure !== undefined) return;
    this.queue.push(frame);
    const most = this.options.maxBacklogMs;
    if (most !== undefined && this.queue.length > most / MS_PER_SAMPLE) this.drop(Math.round(most / MS_PER_SAMPLE));
    if (this.queue.length >= this.stepSamples && !this.running) {
      this.running = this.pump().finally(() => (this.running = undefined));
    }
  }

  async drain(): Promise<void> {
    while (this.running) await this.running;
  }

  reset(): void {
    this.queue.clear();
    if (this.running) this.resetWanted = true;
    else this.resetState();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.queue.clear();
    await this.drain();
    await Promise.all([this.features.embedding, ...this.classifiers].map((s) => s.release()));
    this.denoiser?.close();
    this.detections$.complete();
    this.scores$.complete();
    this.backlog$.complete();
  }

  private get batchSteps(): number {
    return this.options.maxBatchSteps ?? 128;
  }

  /** Whether the audio is denoised before it is scored (when the detector keeps up). */
  get denoising(): boolean {
    return this.denoiser !== undefined;
  }

  /** Whether the embedding model runs as stages over the rows windows share (else on each window whole). */
  get embeddingStreamed(): boolean {
    return this.features.embedding.streamed;
  }

  /** Audio dropped unscored because it piled up beyond `maxBacklogMs`. */
  get droppedMs(): number {
    return this.droppedSamples * MS_PER_SAMPLE;
  }

  /** Audio waiting to be scored. */
  get backlogMs(): number {
    return this.queue.length * MS_PER_SAMPLE;
  }

  /** How much it does per step now (always `full` but for live use). */
  get currentPace(): WakePace {
    return this.pace;
  }

  /** Drops the oldest queued audio down to `keep` samples; what follows the gap starts afresh. */
  private drop(keep: number): void {
    this.droppedSamples += this.queue.dropOldest(keep);
    this.backlog$.next(this.report());
    if (this.running) this.resetWanted = true;
    else this.resetState();
  }

  private report(): WakeBacklog {
    return { pace: this.pace, backlogMs: this.backlogMs, droppedMs: this.droppedMs, atMs: this.scoredMs };
  }

  private get scoredMs(): number {
    return this.queue.position * MS_PER_SAMPLE;
  }

  private resetState(): void {
    this.hearing.reset();
    this.resetWanted = false;
  }

  /** Scores queued steps until none is left; the one loop that runs inference. */
  private async pump(): Promise<void> {
    try {
      while (!this.closed) {
        this.choosePace();
        const stepSamples = this.stepSamples;
        const steps = Math.min(Math.floor(this.queue.length / stepSamples), this.batchSteps);
        if (steps === 0) break;
        const startSample = this.queue.position;
        const raw = this.queue.take(steps * stepSamples);
        await this.hearing.hear(raw, startSample, this.pace, () => this.interrupted());
        if (this.resetWanted) this.resetState();
      }
    } catch (error) {
      this.failure = error;
      this.detections$.error(error);
      this.scores$.error(error);
      this.backlog$.error(error);
    }
  }

  private choosePace(): void {
    if (this.options.maxBacklogMs === undefined) return;
    const pace = this.pacer.next(this.backlogMs, this.scoredMs);
    if (pace === this.pace) return;
    this.pace = pace;
    this.backlog$.next(this.report());
  }

  private interrupted(): boolean {
    return this.resetWanted || this.closed;
  }
}

/** openWakeWord's mel spectrogram, computed by hark from the file's weights; what is wrong with the file if it cannot be. */
async function loadMel(path: string): Promise<MelNetwork> {
  try {
    return MelNetwork.fromOnnx(await readFile(path));
  } catch (error) {
    throw new WakeModelsMissingError(
      `${path}: not openWakeWord's melspectrogram (${(error as Error).message})`,
      "use the melspectrogram.onnx that openWakeWord publishes, or remove it to use the package's",
    );
  }
}
