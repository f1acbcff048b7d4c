import type { EmbeddingStage } from './embedding-stages.js';
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

/** A stage of the embedding model, ready to run (its model's bytes no longer needed). */
export interface RunnableStage extends Omit<EmbeddingStage, 'model'> {
  run(input: Rows): Promise<Rows>;
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

/** A window asked for: where it starts, and where its embedding goes in the answer. */
interface Wanted {
  start: number;
  index: number;
}

/**
 * The windows asked for by phase, each phase's in runs whose neighbours are at most a window
 * apart (further apart, they share nothing) and which span at most BATCH_WINDOWS windows, oldest first.
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
 * compute its next windows from the new frames alone.
 */
export class StagedStream implements EmbeddingStream {
  private readonly stride: number;
  private readonly phases = new Map<number, Phase>();

  constructor(private readonly stages: readonly RunnableStage[]) {
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

  /**
   * Computes the windows of `phase` up to `last`: from the phase's newest window on when `first`
   * comes after it and within a window of it (the frames between are then still held), else
   * from `first`, afresh.
   */
  private async advance(
    rows: MelRows,
    phase: number,
    first: number,
    last: number,
  ): Promise<{ from: number; embeddings: Float32Array }> {
    const state = this.phases.get(phase);
    const goesOn = state !== undefined && state.lastStart < first && first - state.lastStart <= EMBEDDING_FRAMES;
    const newFrom = goesOn ? state.lastStart + EMBEDDING_FRAMES : first;
    const newTo = last + EMBEDDING_FRAMES;
    let flowing: Rows = { data: melFrames(rows, newFrom, newTo), dims: [1, newTo - newFrom, MEL_BINS] };
    const kept: Rows[] = [];
    for (const [i, stage] of this.stages.entries()) {
      const input = joined(goesOn ? state.kept[i] : undefined, flowing);
      kept.push(lastRows(input, stage.context));
      flowing = await stage.run(input);
    }
    this.phases.set(phase, { lastStart: last, kept });
    return { from: goesOn ? state.lastStart + this.stride : first, embeddings: byWindow(flowing) };
  }
}
