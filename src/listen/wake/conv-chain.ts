import type { NnKernels } from '../nn-kernels.js';
import { filled, rowsBlock, rowWidth, type FloatBlock } from '../nn-rows.js';
import { onnxConstants, OnnxModelError, type Weights } from '../onnx/onnx-constants.js';
import { onnxGraph, type OnnxNode } from '../onnx/onnx-graph.js';
import type { Rows } from './embedding-stream.js';

/**
 * A stage of openWakeWord's embedding model (`embedding-stages.ts` cuts it), run on hark's
 * kernels: a chain of 2-D convolutions (stride 1, padded only along the width), leaky ReLUs,
 * a floor (`Max` with a constant) and max pools, over one input's channels × rows × width.
 */

interface Conv {
  op: 'conv';
  height: number;
  width: number;
  left: number;
  right: number;
  outChannels: number;
  /** The weights as the direct kernel reads them: out × in × height × width. */
  weights: FloatBlock;
  /**
   * The same, each output channel's row padded for the product over columns (`rowsBlock`): made
   * when an input first comes out narrower than the direct kernel takes, which most never do.
   */
  rows?: FloatBlock;
  /** in × height × width, and that padded to the rows' width. */
  perOutput: number;
  span: number;
  bias: FloatBlock;
}

type Step =
  | Conv
  | { op: 'leaky'; alpha: number }
  | { op: 'floor'; value: number }
  | { op: 'pool'; height: number; width: number; rowStride: number; columnStride: number };

/** The direct kernel works on four output columns at a time; narrower outputs go through columns and a product. */
const DIRECT_MIN_WIDTH = 4;

function weightsOf(all: Map<string, Weights>, name: string | undefined): Weights {
  const weights = name === undefined ? undefined : all.get(name);
  if (!weights) throw new OnnxModelError(`the stage has no tensor ${name ?? '(none named)'}`);
  return weights;
}

function convOf(node: OnnxNode, all: Map<string, Weights>, kernels: NnKernels): Conv {
  const ints = (name: string, otherwise: number[]): number[] => node.ints.get(name) ?? otherwise;
  const weights = weightsOf(all, node.inputs[1]);
  if (weights.dims.length !== 4) throw new OnnxModelError('a convolution that is not 2-D');
  const [outChannels, inChannels, height, width] = weights.dims as [number, number, number, number];
  const [top, left, bottom, right] = ints('pads', [0, 0, 0, 0]) as [number, number, number, number];
  if (top !== 0 || bottom !== 0 || ints('strides', [1, 1]).some((s) => s !== 1)) {
    throw new OnnxModelError('a convolution padded along time, or with a stride: not a stage hark can run');
  }
  if (ints('dilations', [1, 1]).some((d) => d !== 1) || ints('group', [1]).some((g) => g !== 1)) {
    throw new OnnxModelError('a dilated or grouped convolution: not a stage hark can run');
  }
  const bias = node.inputs[2] ? weightsOf(all, node.inputs[2]).data : new Float32Array(outChannels);
  const span = inChannels * height * width;
  return {
    op: 'conv',
    height,
    width,
    left,
    right,
    outChannels,
    weights: filled(kernels, weights.data),
    perOutput: span,
    span: rowWidth(span),
    bias: filled(kernels, bias),
  };
}

function stepOf(node: OnnxNode, all: Map<string, Weights>, kernels: NnKernels): Step {
  switch (node.op) {
    case 'Conv':
      return convOf(node, all, kernels);
    case 'LeakyRelu':
      return { op: 'leaky', alpha: node.floats.get('alpha') ?? 0.01 };
    case 'Max': {
      const floor = weightsOf(all, node.inputs[1]);
      if (floor.data.length !== 1) throw new OnnxModelError('a Max with a tensor that is not one number');
      return { op: 'floor', value: floor.data[0] as number };
    }
    case 'MaxPool': {
      const [height, width] = node.ints.get('kernel_shape') as [number, number];
      const [rowStride, columnStride] = (node.ints.get('strides') ?? [1, 1]) as [number, number];
      if ((node.ints.get('pads') ?? []).some((p) => p !== 0)) throw new OnnxModelError('a padded pool');
      return { op: 'pool', height, width, rowStride, columnStride };
    }
    default:
      throw new OnnxModelError(`${node.op} in a stage: not an operator hark runs`);
  }
}

/** What follows a convolution and is done as it writes: a leaky ReLU's slope, then a floor. */
interface Activation {
  alpha: number;
  floor: number;
  /** Steps it takes up after the convolution. */
  steps: number;
}

function activationAfter(steps: readonly Step[], at: number): Activation {
  const leaky = steps[at];
  if (leaky?.op !== 'leaky') return { alpha: 1, floor: -Infinity, steps: 0 };
  const floor = steps[at + 1];
  return floor?.op === 'floor'
    ? { alpha: leaky.alpha, floor: floor.value, steps: 2 }
    : { alpha: leaky.alpha, floor: -Infinity, steps: 1 };
}

type Dims = [number, number, number];

/**
 * Where the chains of one model work: ping-pong buffers (each step reads one and writes the
 * other) and scratch (padded rows for the direct kernel, or columns for the product). The chains
 * run one after another and hand on copies, so they share one set: the kernels' memory never
 * shrinks, and four sets held 2.4 MB.
 */
export class ChainBuffers {
  private readonly pair: (FloatBlock | undefined)[] = [undefined, undefined];
  private spare: FloatBlock | undefined;

  constructor(private readonly kernels: NnKernels) {}

  /** Buffer `which` (0 or 1), at least `n` floats; grown by half again so a longer input rarely grows it twice. */
  buffer(which: number, n: number): FloatBlock {
    const block = this.pair[which];
    if (block && block.length >= n) return block;
    const bigger = this.kernels.block(Math.ceil(n * 1.5));
    this.pair[which] = bigger;
    return bigger;
  }

  scratch(n: number): FloatBlock {
    if (!this.spare || this.spare.length < n) this.spare = this.kernels.block(Math.ceil(n * 1.5));
    return this.spare;
  }
}

export class ConvChain {
  private constructor(
    private readonly kernels: NnKernels,
    private readonly steps: readonly Step[],
    private readonly buffers: ChainBuffers,
  ) {}

  /** From a stage as an ONNX model of its own; throws `OnnxModelError` when it holds what hark does not run. */
  static fromOnnx(model: Uint8Array, kernels: NnKernels, buffers = new ChainBuffers(kernels)): ConvChain {
    const all = onnxConstants(model);
    const steps = onnxGraph(model).nodes.map((node) => stepOf(node, all, kernels));
    return new ConvChain(kernels, steps, buffers);
  }

  run(input: Rows): Rows {
    let dims: Dims = [...input.dims];
    let current = 0;
    let block = this.buffers.buffer(current, input.data.length);
    block.data.set(input.data);
    for (let s = 0; s < this.steps.length; s++) {
      const step = this.steps[s] as Step;
      if (step.op === 'leaky' || step.op === 'floor') {
        const activation =
          step.op === 'floor' ? { alpha: 1, floor: step.value, steps: 0 } : activationAfter(this.steps, s);
        this.kernels.leakyFloor(block, dims[0] * dims[1] * dims[2], activation.alpha, activation.floor);
        s += Math.max(0, activation.steps - 1);
        continue;
      }
      const next = 1 - current;
      if (step.op === 'pool') dims = this.pool(step, block, dims, next);
      else {
        const activation = activationAfter(this.steps, s + 1);
        dims = this.conv(step, block, dims, next, activation);
        s += activation.steps;
      }
      current = next;
      block = this.buffers.buffer(current, 0);
    }
    return { data: block.data.slice(0, dims[0] * dims[1] * dims[2]), dims };
  }

  private conv(step: Conv, input: FloatBlock, dims: Dims, into: number, activation: Activation): Dims {
    const [channels, inRows, inWidth] = dims;
    const outRows = Math.max(0, inRows - step.height + 1);
    const paddedWidth = inWidth + step.left + step.right;
    const outWidth = paddedWidth - step.width + 1;
    const out = this.buffers.buffer(into, step.outChannels * outRows * outWidth);
    if (outWidth >= DIRECT_MIN_WIDTH) {
      let source = input;
      if (step.left + step.right > 0) {
        source = this.buffers.scratch(channels * inRows * paddedWidth);
        this.kernels.padWidth(input, dims, step.left, step.right, source);
      }
      const { alpha, floor } = activation;
      const shape: Dims = [channels, inRows, paddedWidth];
      this.kernels.conv(
        source,
        shape,
        step.weights,
        step.bias,
        step.outChannels,
        step.height,
        step.width,
        out,
        alpha,
        floor,
      );
    } else {
      const positions = outRows * outWidth;
      const columns = this.buffers.scratch(positions * step.span);
      this.kernels.im2col(input, dims, step.height, step.width, step.left, step.right, columns, step.span);
      step.rows ??= rowsBlock(this.kernels, step.weights.data.slice(), step.perOutput);
      this.kernels.gemm(step.rows, columns, step.bias, out, step.outChannels, step.span, positions);
      if (activation.steps > 0) {
        this.kernels.leakyFloor(out, step.outChannels * positions, activation.alpha, activation.floor);
      }
    }
    return [step.outChannels, outRows, outWidth];
  }

  private pool(step: Step & { op: 'pool' }, input: FloatBlock, dims: Dims, into: number): Dims {
    const [channels, inRows, inWidth] = dims;
    const outRows = Math.max(0, Math.floor((inRows - step.height) / step.rowStride) + 1);
    const outWidth = Math.floor((inWidth - step.width) / step.columnStride) + 1;
    const out = this.buffers.buffer(into, channels * outRows * outWidth);
    this.kernels.maxPool(input, dims, step.height, step.width, step.rowStride, step.columnStride, out);
    return [channels, outRows, outWidth];
  }
}
