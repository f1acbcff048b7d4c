import { readFile } from 'node:fs/promises';
import type * as Ort from 'onnxruntime-node';
import { cutAtTimePools, type EmbeddingStage } from './embedding-stages.js';

export const MEL_BINS = 32;
/** The mel frames one embedding reads. */
export const EMBEDDING_FRAMES = 76;
export const EMBEDDING_SIZE = 96;
/**
 * Most windows computed in one run (of the whole model, or of the stages over the rows of that
 * many steps): onnxruntime keeps the memory of its largest run.
 */
const BATCH_WINDOWS = 4;

/** Mel frames by their index in the stream: `frames` holds `MEL_BINS` values each, from the frame `first` on. */
export interface MelRows {
  first: number;
  frames: Float32Array;
}

/** The embeddings of one unbroken stream of mel frames. */
export interface EmbeddingStream {
  /** One embedding per window of `EMBEDDING_FRAMES` frames starting at each of `starts` (frames in `rows`), in their order. */
  embed(rows: MelRows, starts: readonly number[]): Promise<Float32Array>;
  /** The frames' indexes start again: nothing computed before is reused. */
  reset(): void;
}

/**
 * openWakeWord's embedding model. Cut into stages where it can be (see `cutAtTimePools`): a
 * stream then computes each window from the rows it shares with the window a stage stride
 * before it (8 frames, one step), about a third of the work of the whole model, and the same
 * numbers. A model that cannot be cut is run on each window whole.
 */
export class WakeEmbedding {
  private constructor(
    private readonly ort: typeof Ort,
    private readonly sessions: readonly Ort.InferenceSession[],
    private readonly stages: readonly EmbeddingStage[] | undefined,
  ) {}

  static async load(
    ort: typeof Ort,
    path: string,
    options: Ort.InferenceSession.SessionOptions,
  ): Promise<WakeEmbedding> {
    const stages = cutAtTimePools(await readFile(path));
    if (!stages) return WakeEmbedding.whole(ort, path, options);
    const sessions: Ort.InferenceSession[] = [];
    try {
      for (const stage of stages) sessions.push(await ort.InferenceSession.create(stage.model, options));
    } catch (error) {
      await Promise.all(sessions.map((s) => s.release()));
      throw error;
    }
    return new WakeEmbedding(ort, sessions, stages);
  }

  /** The model run on each window whole (what `load` falls back to for a model it cannot cut). */
  static async whole(
    ort: typeof Ort,
    path: string,
    options: Ort.InferenceSession.SessionOptions,
  ): Promise<WakeEmbedding> {
    return new WakeEmbedding(ort, [await ort.InferenceSession.create(path, options)], undefined);
  }

  /** Whether windows share the work of the rows they have in common. */
  get streamed(): boolean {
    return this.stages !== undefined;
  }

  stream(): EmbeddingStream {
    const run = (session: Ort.InferenceSession, input: Rows): Promise<Rows> => this.run(session, input);
    return this.stages
      ? new StagedStream(
          this.stages.map((stage, i) => ({ ...stage, session: this.sessions[i] as Ort.InferenceSession })),
          run,
        )
      : new WholeWindows(this.ort, this.sessions[0] as Ort.InferenceSession);
  }

  async release(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.release()));
  }

  private async run(session: Ort.InferenceSession, input: Rows): Promise<Rows> {
    const [channels, rows, width] = input.dims;
    const result = await session.run({
      [session.inputNames[0] as string]: new this.ort.Tensor('float32', input.data, [1, channels, rows, width]),
    });
    const output = result[session.outputNames[0] as string] as Ort.Tensor;
    const [, c, r, w] = output.dims as number[];
    return { data: output.data as Float32Array, dims: [c as number, r as number, w as number] };
  }
}

/** One input's activations: channels × rows (time) × width. */
interface Rows {
  data: Float32Array;
  dims: [number, number, number];
}

function rowsOf(mel: MelRows, from: number, to: number): Rows {
  const at = (from - mel.first) * MEL_BINS;
  return { data: mel.frames.slice(at, at + (to - from) * MEL_BINS), dims: [1, to - from, MEL_BINS] };
}

/** `a`'s rows then `b`'s, channel by channel. */
function joined(a: Rows | undefined, b: Rows): Rows {
  if (!a || a.dims[1] === 0) return b;
  const [channels, aRows, width] = a.dims;
  const bRows = b.dims[1];
  const data = new Float32Array(channels * (aRows + bRows) * width);
  for (let c = 0; c < channels; c++) {
    data.set(a.data.subarray(c * aRows * width, (c + 1) * aRows * width), c * (aRows + bRows) * width);
    data.set(b.data.subarray(c * bRows * width, (c + 1) * bRows * width), (c * (aRows + bRows) + aRows) * width);
  }
  return { data, dims: [channels, aRows + bRows, width] };
}

function lastRows(rows: Rows, count: number): Rows {
  const [channels, all, width] = rows.dims;
  const data = new Float32Array(channels * count * width);
  for (let c = 0; c < channels; c++) {
    data.set(rows.data.subarray((c * all + all - count) * width, (c + 1) * all * width), c * count * width);
  }
  return { data, dims: [channels, count, width] };
}

/** A window asked for: where it starts, and where its embedding goes in the answer. */
interface Wanted {
  start: number;
  index: number;
}

/**
 * The windows asked for by phase, each phase's in runs whose neighbours are at most a window
 * apart (further apart, they share nothing) and which span at most BATCH_WINDOWS strides, oldest first.
 */
function runsOf(starts: readonly number[], stride: number): { phase: number; windows: Wanted[] }[] {
  const byPhase = new Map<number, Wanted[]>();
  starts.forEach((start, index) => {
    const phase = ((start % stride) + stride) % stride;
    const wanted = byPhase.get(phase) ?? [];
    wanted.push({ start, index });
    byPhase.set(phase, wanted);
  });
  const runs: { phase: number; windows: Wanted[] }[] = [];
  for (const [phase, wanted] of byPhase) {
    wanted.sort((a, b) => a.start - b.start);
    let windows: Wanted[] = [];
    for (const window of wanted) {
      const previous = windows.at(-1);
      const spanned = window.start - (windows[0]?.start ?? window.start) >= BATCH_WINDOWS * stride;
      if (previous && (window.start - previous.start > EMBEDDING_FRAMES || spanned)) {
        runs.push({ phase, windows });
        windows = [];
      }
      windows.push(window);
    }
    runs.push({ phase, windows });
  }
  return runs;
}

interface Phase {
  /** The newest window computed. */
  lastStart: number;
  /** What each stage keeps of its last input. */
  kept: Rows[];
}

/**
 * Windows whose starts differ by a multiple of the stages' stride share rows: each such family
 * (a phase: the steps' windows, or those halfway between them) keeps what its stages need to
 * compute the next window from the new frames alone.
 */
class StagedStream implements EmbeddingStream {
  private readonly stride: number;
  private readonly phases = new Map<number, Phase>();

  constructor(
    private readonly stages: readonly (EmbeddingStage & { session: Ort.InferenceSession })[],
    private readonly run: (session: Ort.InferenceSession, input: Rows) => Promise<Rows>,
  ) {
    this.stride = stages.reduce((product, s) => product * s.shrink, 1);
  }

  async embed(rows: MelRows, starts: readonly number[]): Promise<Float32Array> {
    const out = new Float32Array(starts.length * EMBEDDING_SIZE);
    for (const { phase, windows } of runsOf(starts, this.stride)) {
      const first = (windows[0] as Wanted).start;
      const computed = await this.advance(rows, phase, first, (windows.at(-1) as Wanted).start);
      for (const { start, index } of windows) {
        const at = ((start - computed.from) / this.stride) * EMBEDDING_SIZE;
        out.set(computed.embeddings.subarray(at, at + EMBEDDING_SIZE), index * EMBEDDING_SIZE);
      }
    }
    return out;
  }

  reset(): void {
    this.phases.clear();
  }

  /** Computes the windows of `phase` up to `last`, from where the phase stands when it can go on, else from `first`. */
  private async advance(
    rows: MelRows,
    phase: number,
    first: number,
    last: number,
  ): Promise<{ from: number; embeddings: Float32Array }> {
    const state = this.phases.get(phase);
    const goesOn =
      state !== undefined &&
      state.lastStart < first &&
      first - state.lastStart <= EMBEDDING_FRAMES &&
      state.lastStart + EMBEDDING_FRAMES >= rows.first;
    const from = goesOn ? state.lastStart + this.stride : first;
    let flowing = rowsOf(rows, goesOn ? state.lastStart + EMBEDDING_FRAMES : first, last + EMBEDDING_FRAMES);
    const kept: Rows[] = [];
    for (const [i, stage] of this.stages.entries()) {
      const input = joined(goesOn ? state.kept[i] : undefined, flowing);
      kept.push(lastRows(input, stage.context));
      flowing = await this.run(stage.session, input);
    }
    this.phases.set(phase, { lastStart: last, kept });
    return { from, embeddings: byWindow(flowing) };
  }
}

/** The last stage's rows (one per window) as one embedding after another. */
function byWindow(output: Rows): Float32Array {
  const [channels, windows, width] = output.dims;
  const out = new Float32Array(windows * channels * width);
  for (let c = 0; c < channels; c++)
    for (let j = 0; j < windows; j++)
      for (let w = 0; w < width; w++)
        out[(j * channels + c) * width + w] = output.data[(c * windows + j) * width + w] as number;
  return out;
}

/**
 * The whole model on each window, in batches of at most BATCH_WINDOWS: 48 windows at once held
 * 79 MB more than 4 do, at the same CPU per window.
 */
class WholeWindows implements EmbeddingStream {
  constructor(
    private readonly ort: typeof Ort,
    private readonly session: Ort.InferenceSession,
  ) {}

  async embed(rows: MelRows, starts: readonly number[]): Promise<Float32Array> {
    const windowSize = EMBEDDING_FRAMES * MEL_BINS;
    const out = new Float32Array(starts.length * EMBEDDING_SIZE);
    const name = this.session.inputNames[0] as string;
    for (let from = 0; from < starts.length; from += BATCH_WINDOWS) {
      const chunk = starts.slice(from, from + BATCH_WINDOWS);
      const batch = new Float32Array(chunk.length * windowSize);
      chunk.forEach((start, s) => batch.set(rowsOf(rows, start, start + EMBEDDING_FRAMES).data, s * windowSize));
      const result = await this.session.run({
        [name]: new this.ort.Tensor('float32', batch, [chunk.length, EMBEDDING_FRAMES, MEL_BINS, 1]),
      });
      out.set(result[this.session.outputNames[0] as string]?.data as Float32Array, from * EMBEDDING_SIZE);
    }
    return out;
  }

  reset(): void {}
}
