/**
 * What the listening models' arithmetic runs on: blocks of floats in one memory, and the product
 * of a block of weight rows with an input block (hark's WebAssembly kernels, `nn-kernels.ts`).
 */

/** A block of floats; `data` is a fresh view of it (the memory may have grown since the last). */
export interface FloatBlock {
  readonly length: number;
  readonly data: Float32Array;
}

/** out[r] = bias[r] + (row r of weights) · x for r < rows, each row `width` floats (a multiple of 4); then max(0, ·) when `relu`. */
export interface RowProduct {
  weights: FloatBlock;
  x: FloatBlock;
  bias: FloatBlock;
  out: FloatBlock;
  rows: number;
  width: number;
  relu: boolean;
}

export interface RowKernels {
  /** A zeroed block of `length` floats. */
  block(length: number): FloatBlock;
  rows(product: RowProduct): void;
}

/** A row's width padded to the kernels' multiple of 4 floats. */
export function rowWidth(width: number): number {
  return Math.ceil(width / 4) * 4;
}

/** A block holding `values` as rows of `width`, each padded to the kernels' row width. */
export function rowsBlock(kernels: RowKernels, values: Float32Array, width: number): FloatBlock {
  const rows = values.length / width;
  const padded = rowWidth(width);
  const block = kernels.block(rows * padded);
  const data = block.data;
  for (let r = 0; r < rows; r++) data.set(values.subarray(r * width, (r + 1) * width), r * padded);
  return block;
}

export function filled(kernels: RowKernels, values: Float32Array): FloatBlock {
  const block = kernels.block(values.length);
  block.data.set(values);
  return block;
}
