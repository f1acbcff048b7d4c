export const MEL_BINS = 32;
/** The mel frames one embedding reads. */
export const EMBEDDING_FRAMES = 76;
export const EMBEDDING_SIZE = 96;
/**
 * Most windows computed in one run (of the whole model, or of the stages over the rows of that
 * many steps): onnxruntime keeps the memory of its largest run.
 */
export const BATCH_WINDOWS = 4;

/** One input's activations: channels × rows (time) × width. */
export interface Rows {
  data: Float32Array;
  dims: [number, number, number];
}

/** Mel frames by their index in the stream: `frames` holds `MEL_BINS` values each, from the frame `first` on. */
export interface MelRows {
  first: number;
  frames: Float32Array;
}

/**
 * The embeddings of one unbroken stream of mel frames (a frame's index always means the same
 * frame). One call at a time: each awaits the one before.
 */
export interface EmbeddingStream {
  /** One embedding per window of `EMBEDDING_FRAMES` frames starting at each of `starts` (frames in `rows`), in their order. */
  embed(rows: MelRows, starts: readonly number[]): Promise<Float32Array>;
}

/** The frames `from` to `to` of `mel`. */
export function melFrames(mel: MelRows, from: number, to: number): Float32Array {
  const at = (from - mel.first) * MEL_BINS;
  return mel.frames.slice(at, at + (to - from) * MEL_BINS);
}
