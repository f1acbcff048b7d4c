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

  rows({ weights, x, bias, out, rows, width, relu }: RowProduct): void {
    this.wasm.hark_nn_rows(at(weights), at(x), at(bias), at(out), rows, width, relu ? 1 : 0);
  }
}

function at(block: FloatBlock): number {
  if (!(block instanceof WasmBlock)) throw new TypeError('a block from another kernel set');
  return block.at;
}
