import { readFile } from 'node:fs/promises';
import type * as Ort from 'onnxruntime-node';
import { cutAtTimePools } from './embedding-stages.js';
import {
  BATCH_WINDOWS,
  EMBEDDING_FRAMES,
  EMBEDDING_SIZE,
  MEL_BINS,
  melFrames,
  type EmbeddingStream,
  type MelRows,
  type Rows,
} from './embedding-stream.js';
import type { NnKernels } from '../nn-kernels.js';
import { notForHark } from '../onnx/onnx-constants.js';
import { ChainBuffers, ConvChain } from './conv-chain.js';
import { StagedStream, type RunnableStage } from './staged-stream.js';

/** Windows the stages are checked on against the whole model: afresh, one step on, a batch, another phase. */
const PROBE_CALLS = [[0], [8], [16, 24, 32], [4]];
/**
 * How far apart the stages' numbers and the whole model's may be, against the largest value of
 * the window: the same sums in another order (onnxruntime's kernels for other sizes of input)
 * move the last digits; a window misread is off by a whole value.
 */
const PROBE_TOLERANCE = 1e-4;

/**
 * openWakeWord's embedding model. Cut into stages where it can be (see `cutAtTimePools`), a
 * stream computes each window from the rows it shares with the window a step (8 frames) before
 * it: about a third of the work of the whole model, for the same numbers up to float rounding.
 * The stages run on hark's kernels, without onnxruntime (its library and arenas, loaded, are
 * most of the memory the wake word holds). A model with other operators runs in onnxruntime, its
 * stages checked against the whole model when loaded; one that cannot be cut, or whose stages do
 * not give its numbers, is run on each window whole.
 */
export class WakeEmbedding {
  private constructor(
    /** Absent when no stage runs in onnxruntime. */
    private readonly ort: typeof Ort | undefined,
    private readonly sessions: readonly Ort.InferenceSession[],
    private readonly stages: readonly RunnableStage[] | undefined,
  ) {}

  /**
   * The model on hark's kernels where its stages are made of what they run (openWakeWord's is),
   * else in onnxruntime, loaded then by `loadOrt`.
   */
  static async load(
    path: string,
    kernels: NnKernels,
    loadOrt: () => Promise<typeof Ort>,
    options: Ort.InferenceSession.SessionOptions,
  ): Promise<WakeEmbedding> {
    const onKernels = await WakeEmbedding.onKernels(path, kernels).catch((error: unknown) => {
      if (notForHark(error)) return undefined;
      throw error;
    });
    return onKernels ?? (await WakeEmbedding.inOnnxruntime(await loadOrt(), path, options));
  }

  /** The model in onnxruntime: cut into stages where they give the whole model's numbers, else whole. */
  static async inOnnxruntime(
    ort: typeof Ort,
    path: string,
    options: Ort.InferenceSession.SessionOptions,
  ): Promise<WakeEmbedding> {
    const whole = await WakeEmbedding.whole(ort, path, options);
    // A file onnxruntime reads but the cut does not is run whole, as it always was.
    const staged = await WakeEmbedding.staged(ort, path, options).catch(() => undefined);
    if (staged && (await staged.agreesWith(whole).catch(() => false))) {
      await whole.release();
      return staged;
    }
    await staged?.release();
    return whole;
  }

  /** The model cut into stages, not checked against the whole model; undefined when it cannot be cut. */
  static async staged(
    ort: typeof Ort,
    path: string,
    options: Ort.InferenceSession.SessionOptions,
  ): Promise<WakeEmbedding | undefined> {
    const stages = cutAtTimePools(await readFile(path));
    if (!stages) return undefined;
    const sessions: Ort.InferenceSession[] = [];
    try {
      for (const stage of stages) sessions.push(await ort.InferenceSession.create(stage.model, options));
    } catch (error) {
      await Promise.all(sessions.map((s) => s.release()));
      throw error;
    }
    const runnable = stages.map(({ context, shrink }, i) => {
      const session = sessions[i] as Ort.InferenceSession;
      return { context, shrink, run: (input: Rows) => runSession(ort, session, input) };
    });
    return new WakeEmbedding(ort, sessions, runnable);
  }

  /**
   * The model cut into stages run on hark's kernels (`conv-chain.ts`); undefined when it cannot be
   * cut, `OnnxModelError` when a stage holds an operator they do not run.
   */
  static async onKernels(path: string, kernels: NnKernels): Promise<WakeEmbedding | undefined> {
    const stages = cutAtTimePools(await readFile(path));
    if (!stages) return undefined;
    const buffers = new ChainBuffers(kernels);
    const runnable = stages.map(({ model, context, shrink }) => {
      const chain = ConvChain.fromOnnx(model, kernels, buffers);
      return { context, shrink, run: (input: Rows) => Promise.resolve(chain.run(input)) };
    });
    return new WakeEmbedding(undefined, [], runnable);
  }

  /** The model run on each window whole. */
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
    return this.stages
      ? new StagedStream(this.stages)
      : new WholeWindows(this.ort as typeof Ort, this.sessions[0] as Ort.InferenceSession);
  }

  async release(): Promise<void> {
    await Promise.all(this.sessions.map((s) => s.release()));
  }

  /** Whether this and `other` give the same numbers, within PROBE_TOLERANCE, on made-up frames. */
  private async agreesWith(other: WakeEmbedding): Promise<boolean> {
    const count = EMBEDDING_FRAMES + Math.max(...PROBE_CALLS.flat());
    const frames = new Float32Array(count * MEL_BINS);
    let seed = 1;
    for (let i = 0; i < frames.length; i++) {
      seed = (seed * 48271) % 2147483647;
      frames[i] = (seed / 2147483647) * 4 - 1;
    }
    const rows = { first: 0, frames };
    const mine = this.stream();
    const theirs = other.stream();
    for (const starts of PROBE_CALLS) {
      const [a, b] = [await mine.embed(rows, starts), await theirs.embed(rows, starts)];
      const scale = b.reduce((most, v) => Math.max(most, Math.abs(v)), 1);
      if (a.some((v, i) => !(Math.abs(v - (b[i] as number)) <= PROBE_TOLERANCE * scale))) return false;
    }
    return true;
  }
}

async function runSession(ort: typeof Ort, session: Ort.InferenceSession, input: Rows): Promise<Rows> {
  const [channels, rows, width] = input.dims;
  const result = await session.run({
    [session.inputNames[0] as string]: new ort.Tensor('float32', input.data, [1, channels, rows, width]),
  });
  const output = result[session.outputNames[0] as string] as Ort.Tensor;
  const [, c, r, w] = output.dims as number[];
  return { data: output.data as Float32Array, dims: [c as number, r as number, w as number] };
}

/** The whole model on each window, in batches of at most BATCH_WINDOWS (48 at once held 79 MB more than 4). */
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
      chunk.forEach((start, s) => batch.set(melFrames(rows, start, start + EMBEDDING_FRAMES), s * windowSize));
      const result = await this.session.run({
        [name]: new this.ort.Tensor('float32', batch, [chunk.length, EMBEDDING_FRAMES, MEL_BINS, 1]),
      });
      out.set(result[this.session.outputNames[0] as string]?.data as Float32Array, from * EMBEDDING_SIZE);
    }
    return out;
  }
}
