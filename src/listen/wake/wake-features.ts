import { EMBEDDING_FRAMES, MEL_BINS, type EmbeddingStream } from './embedding-stream.js';
import type { MelNetwork } from './mel-network.js';
import type { WakeEmbedding } from './wake-embedding.js';

export { EMBEDDING_SIZE } from './embedding-stream.js';

/**
 * openWakeWord's shared feature pipeline, streaming: 16 kHz audio → mel spectrogram (10 ms
 * frames, 32 bins) → one 96-value speech embedding per step, each computed once, from the last
 * 76 mel frames, sharing the work of the rows each window has in common with the one a step
 * before it (see WakeEmbedding).
 *
 * Steps are 80 ms, as openWakeWord's (or 40 ms: a classifier still reads embeddings 80 ms apart,
 * from whichever of two interleaved streams has just got a new one). Near a wake word, windows
 * ending between steps are scored as well (`windowsBefore`), from the mel frames kept.
 */

export const WAKE_SAMPLE_RATE_HZ = 16000;
/** The spacing of the embeddings a classifier reads, as openWakeWord's models were trained: 80 ms. */
export const EMBEDDING_STRIDE_SAMPLES = 1280;
/** Audio is scored in steps of 80 ms (8 mel frames, one embedding), by default, as openWakeWord does. */
export const WAKE_STEP_SAMPLES = 1280;
/** The finest spacing of windows scored near a wake word: 2 mel frames, 20 ms. */
export const FINE_FRAMES = 2;
const MEL_HOP_SAMPLES = 160;
export const MEL_FRAME_MS = (MEL_HOP_SAMPLES / WAKE_SAMPLE_RATE_HZ) * 1000;
/** Samples before a step that its mel frames (512-sample windows, hop 160) also need. */
const MEL_CONTEXT_SAMPLES = 480;
const MEL_WINDOW_SAMPLES = 512;
/** How far back from a step's end the audio its embedding reads begins (the frames' window and its context). */
export const EMBEDDING_REACH_SAMPLES = EMBEDDING_FRAMES * MEL_HOP_SAMPLES + MEL_CONTEXT_SAMPLES;

/** Where the centre of a step's first mel frame lies, before the step's end. */
export function firstFrameBeforeEndMs(stepSamples: number): number {
  return ((MEL_CONTEXT_SAMPLES + stepSamples - MEL_WINDOW_SAMPLES / 2) / WAKE_SAMPLE_RATE_HZ) * 1000;
}

export interface StepFeatures {
  /** One embedding per step from `embedFrom` on, `EMBEDDING_SIZE` values each, oldest first. */
  embeddings: Float32Array;
  /** The loudness of each mel frame (mean of its bins), `stepSamples / 160` per step. */
  loudness: Float32Array;
}

/**
 * A stream's start has no past for the mel and embedding windows to look at. Filling them with a
 * constant (openWakeWord uses ones) makes the jump to real audio look like a sound starting, which
 * some classifiers score high (`alexa` reached 0.63 on steady noise 1 s after a start). Here the
 * past is taken to sound like the first real frame: steady noise then looks steady from the start.
 */
export class WakeFeatures {
  private context = new Float32Array(MEL_CONTEXT_SAMPLES);
  private readonly framesPerStep: number;
  private readonly historyFrames: number;
  /** The last mel frames before the next step: its embeddings' windows, and as far back as `halfwayBefore` reaches. */
  private history: Float32Array;
  /** The mel frames of the last steps given, and the history before them: what `halfwayBefore` reads. */
  private frames = new Float32Array(0);
  /** The index in the stream of the first of `frames`. */
  private framesFirst = 0;
  private fresh = true;
  private readonly embeddings: EmbeddingStream;

  constructor(
    private readonly melspectrogram: MelNetwork,
    embedding: WakeEmbedding,
    /** Samples per step: 1280 (80 ms, as openWakeWord) or 640 (40 ms). */
    readonly stepSamples = WAKE_STEP_SAMPLES,
    /** How many embeddings 80 ms apart `windowsBefore` must reach back for (a classifier's input). */
    lookbackEmbeddings = 0,
  ) {
    this.framesPerStep = stepSamples / MEL_HOP_SAMPLES;
    if (!Number.isInteger(this.framesPerStep) || EMBEDDING_STRIDE_SAMPLES % stepSamples !== 0)
      throw new Error(`a wake step of ${stepSamples} samples does not divide ${EMBEDDING_STRIDE_SAMPLES}`);
    // Back to the oldest window a classifier reads, ending the furthest a window may end before its step.
    const lookback =
      lookbackEmbeddings > 0
        ? ((lookbackEmbeddings - 1) * EMBEDDING_STRIDE_SAMPLES) / MEL_HOP_SAMPLES + this.framesPerStep - FINE_FRAMES
        : 0;
    this.historyFrames = EMBEDDING_FRAMES - this.framesPerStep + lookback;
    this.history = new Float32Array(this.historyFrames * MEL_BINS);
    this.embeddings = embedding.stream();
  }

  /**
   * Features of `samples`, a whole number of steps that follow the audio given before. The mel
   * model clamps its output to 80 dB below the loudest value of its input, so each step's frames
   * come from a run on that step alone (as openWakeWord streams): what a step scores does not
   * depend on how much audio was batched with it. Steps before `embedFrom` are heard only (their
   * frames kept for the windows of the steps after them): they get no embedding.
   */
  async steps(samples: Int16Array, embedFrom = 0): Promise<StepFeatures> {
    const stepSamples = this.stepSamples;
    const perStep = this.framesPerStep;
    const steps = samples.length / stepSamples;
    if (!Number.isInteger(steps) || steps < 1) throw new Error(`wake features take whole ${stepSamples}-sample steps`);
    const fresh = this.fresh;
    const input = new Float32Array(MEL_CONTEXT_SAMPLES + samples.length);
    if (fresh) for (let i = 0; i < MEL_CONTEXT_SAMPLES; i++) input[i] = samples[i] as number;
    else input.set(this.context);
    for (let i = 0; i < samples.length; i++) input[MEL_CONTEXT_SAMPLES + i] = samples[i] as number;
    this.context = input.slice(input.length - MEL_CONTEXT_SAMPLES);
    const frames = new Float32Array(this.history.length + steps * perStep * MEL_BINS);
    const stepInput = MEL_CONTEXT_SAMPLES + stepSamples;
    for (let s = 0; s < steps; s++) {
      const at = s * stepSamples;
      const mel = this.mel(input.subarray(at, at + stepInput), perStep);
      frames.set(mel, this.history.length + s * mel.length);
    }
    if (fresh) {
      const first = frames.subarray(this.history.length, this.history.length + MEL_BINS);
      for (let f = 0; f < this.historyFrames; f++) frames.set(first, f * MEL_BINS);
      this.fresh = false;
    } else {
      this.framesFirst += this.frames.length / MEL_BINS - this.historyFrames;
      frames.set(this.history);
    }
    this.history = frames.slice(frames.length - this.history.length);
    this.frames = frames;
    const loudness = new Float32Array(steps * perStep);
    const mel = frames.subarray(this.historyFrames * MEL_BINS);
    for (let f = 0; f < loudness.length; f++) {
      let sum = 0;
      for (let b = 0; b < MEL_BINS; b++) sum += mel[f * MEL_BINS + b] as number;
      loudness[f] = sum / MEL_BINS;
    }
    const embedded = Math.max(0, steps - embedFrom);
    return {
      embeddings: embedded > 0 ? await this.stepWindows(steps, embedded) : new Float32Array(0),
      loudness,
    };
  }

  /** Mel frames scaled as openWakeWord's models were trained on (x / 10 + 2). */
  private mel(input: Float32Array, expectedFrames: number): Float32Array {
    const data = this.melspectrogram.frames(input);
    if (data.length !== expectedFrames * MEL_BINS) {
      throw new Error(`melspectrogram gave ${data.length / MEL_BINS} frames, expected ${expectedFrames}`);
    }
    const mel = new Float32Array(data.length);
    for (let i = 0; i < data.length; i++) mel[i] = (data[i] as number) / 10 + 2;
    return mel;
  }

  /**
   * Embeddings of windows that end between steps: each `offsetFrames` mel frames (a multiple of
   * FINE_FRAMES, less than a step) before the end of the step `stepsBefore` steps before the
   * newest of the last `steps` call (as far back as `lookbackEmbeddings` asked).
   */
  windowsBefore(windows: readonly { stepsBefore: number; offsetFrames: number }[]): Promise<Float32Array> {
    const newest = this.frames.length / MEL_BINS;
    return this.embed(
      windows.map((w) => Math.max(0, newest - w.stepsBefore * this.framesPerStep - w.offsetFrames - EMBEDDING_FRAMES)),
    );
  }

  /** One embedding for each of the last `count` of `steps` steps: the window of 76 frames ending at that step's last frame. */
  private stepWindows(steps: number, count: number): Promise<Float32Array> {
    const first = this.historyFrames + this.framesPerStep - EMBEDDING_FRAMES + (steps - count) * this.framesPerStep;
    return this.embed(Array.from({ length: count }, (_, s) => first + s * this.framesPerStep));
  }

  /** The embeddings of the 76-frame windows of `frames` starting at the given frames. */
  private embed(starts: readonly number[]): Promise<Float32Array> {
    const first = this.framesFirst;
    return this.embeddings.embed(
      { first, frames: this.frames },
      starts.map((start) => first + start),
    );
  }
}
