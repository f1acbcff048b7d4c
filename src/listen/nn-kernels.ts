import { join } from 'node:path';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { compileWasm } from '../system/wasm-modules.js';
import type { FloatBlock, RowKernels, RowProduct } from './nn-rows.js';

/** hark's neural-network kernels, built to WebAssembly (128-bit SIMD) by native/nn/build.sh. */
export const NN_WASM_PATH = join(PACKAGE_ROOT, 'assets', 'wasm', 'hark-nn.wasm');

interface Exports {
  memory: WebAssembly.Memory;
  hark_nn_alloc(bytes: number): number;
  hark_nn_rows(weights: number, x: number, bias: number, out: number, rows: number, width: number, relu: number): void;
  hark_nn_gemm(
    weights: number,
    columns: number,
    bias: number,
    out: number,
    rows: number,
    width: number,
    positions: number,
  ): void;
  hark_nn_im2col(
    input: number,
    channels: number,
    rows: number,
    width: number,
    kh: number,
    kw: number,
    left: number,
    right: number,
    columns: number,
    span: number,
  ): void;
  hark_nn_leaky_floor(x: number, n: number, alpha: number, floor: number): void;
  hark_nn_conv(
    padded: number,
    channels: number,
    rows: number,
    paddedWidth: number,
    weights: number,
    bias: number,
    outChannels: number,
    kh: number,
    kw: number,
    out: number,
    alpha: number,
    floor: number,
  ): void;
  hark_nn_pad_width(
    input: number,
    channels: number,
    rows: number,
    width: number,
    left: number,
    right: number,
    padded: number,
  ): void;
  hark_nn_max_pool(
    input: number,
    channels: number,
    rows: number,
    width: number,
    kh: number,
    kw: number,
    sh: number,
    sw: number,
    out: number,
  ): void;
}

class WasmBlock implements FloatBlock {
  private view: Float32Array;

  constructor(
    private readonly memory: WebAssembly.Memory,
    readonly at: number,
    readonly length: number,
  ) {
    this.view = new Float32Array(memory.buffer, at, length);
  }

  get data(): Float32Array {
    if (this.view.buffer !== this.memory.buffer) this.view = new Float32Array(this.memory.buffer, this.at, this.length);
    return this.view;
  }
}

/** The kernels on a memory of their own: each user (a model instance) loads its own. */
export class NnKernels implements RowKernels {
  private constructor(private readonly wasm: Exports) {}

  static async load(path = NN_WASM_PATH): Promise<NnKernels> {
    const instance = await WebAssembly.instantiate(await compileWasm(path), {});
    return new NnKernels(instance.exports as unknown as Exports);
  }

  block(length: number): FloatBlock {
    const at = this.wasm.hark_nn_alloc(length * 4);
    if (at === 0) throw new RangeError(`the kernels' memory cannot hold ${length} floats more`);
    return new WasmBlock(this.wasm.memory, at, length);
  }

  gemm(
    weights: FloatBlock,
    columns: FloatBlock,
    bias: FloatBlock,
    out: FloatBlock,
    rows: number,
    width: number,
    positions: number,
  ): void {
    this.wasm.hark_nn_gemm(at(weights), at(columns), at(bias), at(out), rows, width, positions);
  }

  im2col(
    input: FloatBlock,
    dims: [number, number, number],
    kh: number,
    kw: number,
    left: number,
    right: number,
    columns: FloatBlock,
    span: number,
  ): void {
    this.wasm.hark_nn_im2col(at(input), dims[0], dims[1], dims[2], kh, kw, left, right, at(columns), span);
  }

  conv(
    padded: FloatBlock,
    dims: [number, number, number],
    weights: FloatBlock,
    bias: FloatBlock,
    outChannels: number,
    kh: number,
    kw: number,
    out: FloatBlock,
    alpha: number,
    floor: number,
  ): void {
    this.wasm.hark_nn_conv(
      at(padded),
      dims[0],
      dims[1],
      dims[2],
      at(weights),
      at(bias),
      outChannels,
      kh,
      kw,
      at(out),
      alpha,
      floor,
    );
  }

  padWidth(input: FloatBlock, dims: [number, number, number], left: number, right: number, padded: FloatBlock): void {
    this.wasm.hark_nn_pad_width(at(input), dims[0], dims[1], dims[2], left, right, at(padded));
  }

  leakyFloor(x: FloatBlock, n: number, alpha: number, floor: number): void {
    this.wasm.hark_nn_leaky_floor(at(x), n, alpha, floor);
  }

  maxPool(
    input: FloatBlock,
    dims: [number, number, number],
    kh: number,
    kw: number,
    sh: number,
    sw: number,
    out: FloatBlock,
  ): void {
    this.wasm.hark_nn_max_pool(at(input), dims[0], dims[1], dims[2], kh, kw, sh, sw, at(out));
  }

  rows({ weights, x, bias, out, rows, width, relu }: RowProduct): void {
    this.wasm.hark_nn_rows(at(weights), at(x), at(bias), at(out), rows, width, relu ? 1 : 0);
  }
}

function at(block: FloatBlock): number {
  if (!(block instanceof WasmBlock)) throw new TypeError('a block from another kernel set');
  return block.at;
}
