import { OnnxModelError } from '../onnx/onnx-constants.js';
import type { OnnxNode } from '../onnx/onnx-graph.js';

/**
 * The operators of openWakeWord's classifiers, on plain tensors of one or two dimensions, as
 * onnxruntime computes them (float32 throughout).
 */

export interface Tensor {
  data: Float32Array;
  dims: number[];
}

export const UNARY: Record<string, (x: number) => number> = {
  Relu: (x) => (x > 0 ? x : 0),
  Sigmoid: (x) => 1 / (1 + Math.exp(-x)),
  Sqrt: Math.sqrt,
  Identity: (x) => x,
  // Booleans are held as 0 and 1, so a cast between them and floats changes nothing.
  Cast: (x) => x,
};

export const BINARY: Record<string, (a: number, b: number) => number> = {
  Add: (a, b) => a + b,
  Sub: (a, b) => a - b,
  Mul: (a, b) => a * b,
  Div: (a, b) => a / b,
  Pow: (a, b) => (b === 2 ? a * a : a ** b),
  GreaterOrEqual: (a, b) => (a >= b ? 1 : 0),
};

export function size(dims: readonly number[]): number {
  return dims.reduce((p, d) => p * d, 1);
}

/** numpy's broadcasting of two tensors through `f`. */
export function broadcast(a: Tensor, b: Tensor, f: (x: number, y: number) => number): Tensor {
  const sameDims = a.dims.length === b.dims.length && a.dims.every((d, i) => d === b.dims[i]);
  if (sameDims) return { data: a.data.map((x, i) => f(x, b.data[i] as number)), dims: a.dims };
  if (b.data.length === 1 && b.dims.length <= a.dims.length) {
    const y = b.data[0] as number;
    return { data: a.data.map((x) => f(x, y)), dims: a.dims };
  }
  const rank = Math.max(a.dims.length, b.dims.length);
  const pad = (d: number[]): number[] => [...Array<number>(rank - d.length).fill(1), ...d];
  const da = pad(a.dims);
  const db = pad(b.dims);
  const dims = da.map((n, i) => {
    const m = db[i] as number;
    if (n !== m && n !== 1 && m !== 1)
      throw new OnnxModelError(`cannot broadcast ${a.dims.join('×')} with ${b.dims.join('×')}`);
    return Math.max(n, m);
  });
  const stride = (d: number[]): number[] => {
    const s = new Array<number>(rank).fill(0);
    let step = 1;
    for (let i = rank - 1; i >= 0; i--) {
      s[i] = (d[i] as number) === 1 ? 0 : step;
      step *= d[i] as number;
    }
    return s;
  };
  const sa = stride(da);
  const sb = stride(db);
  const data = new Float32Array(size(dims));
  const index = new Array<number>(rank).fill(0);
  for (let o = 0; o < data.length; o++) {
    let ia = 0;
    let ib = 0;
    for (let i = 0; i < rank; i++) {
      ia += (index[i] as number) * (sa[i] as number);
      ib += (index[i] as number) * (sb[i] as number);
    }
    data[o] = f(a.data[ia] as number, b.data[ib] as number);
    for (let i = rank - 1; i >= 0; i--) {
      index[i] = (index[i] as number) + 1;
      if ((index[i] as number) < (dims[i] as number)) break;
      index[i] = 0;
    }
  }
  return { data, dims };
}

/** `f` over each run of the last axis (the only axis these models reduce or normalise over). */
export function alongLast(x: Tensor, axis: number, what: string, f: (row: Float32Array) => Float32Array): Tensor {
  const rank = x.dims.length;
  if (axis !== -1 && axis !== rank - 1) throw new OnnxModelError(`${what} over axis ${axis} of ${rank}`);
  const width = x.dims[rank - 1] as number;
  const rows: Float32Array[] = [];
  for (let at = 0; at < x.data.length; at += width) rows.push(f(x.data.subarray(at, at + width)));
  const out = new Float32Array(rows.reduce((n, r) => n + r.length, 0));
  let at = 0;
  for (const row of rows) {
    out.set(row, at);
    at += row.length;
  }
  return { data: out, dims: [...x.dims.slice(0, -1), (rows[0] as Float32Array).length] };
}

export function gemm(node: OnnxNode, a: Tensor, b: Tensor, c: Tensor | undefined): Tensor {
  const transA = node.ints.get('transA')?.[0] === 1;
  const transB = node.ints.get('transB')?.[0] === 1;
  const alpha = node.floats.get('alpha') ?? 1;
  const beta = node.floats.get('beta') ?? 1;
  const [ar, ac] = a.dims as [number, number];
  const [br, bc] = b.dims as [number, number];
  const m = transA ? ac : ar;
  const k = transA ? ar : ac;
  const n = transB ? br : bc;
  if ((transB ? bc : br) !== k) throw new OnnxModelError(`Gemm of ${a.dims.join('×')} and ${b.dims.join('×')}`);
  const data = new Float32Array(m * n);
  // Rows of A against rows of B (a dense layer's weights, as PyTorch exports them) or its columns.
  const [aRow, aStep] = transA ? [1, ar] : [ac, 1];
  const [bRow, bStep] = transB ? [bc, 1] : [1, bc];
  const x = a.data;
  const y = b.data;
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let sum = 0;
      let ia = i * aRow;
      let ib = j * bRow;
      for (let p = 0; p < k; p++, ia += aStep, ib += bStep) sum += (x[ia] as number) * (y[ib] as number);
      data[i * n + j] = alpha * sum;
    }
  const product = { data, dims: [m, n] };
  return c ? broadcast(product, c, (x, y) => x + beta * y) : product;
}
