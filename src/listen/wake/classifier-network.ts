import { onnxConstants, OnnxModelError, type Weights } from '../onnx/onnx-constants.js';
import { onnxGraph, type OnnxGraph, type OnnxNode } from '../onnx/onnx-graph.js';
import { filled, rowsBlock, rowWidth, type RowKernels, type RowProduct } from '../nn-rows.js';
import { alongLast, BINARY, broadcast, gemm, size, UNARY, type Tensor } from './classifier-operators.js';

/**
 * openWakeWord's classifiers run by hark: an interpreter of the few ONNX operators they are made
 * of (dense layers, layer norms spelled out as arithmetic, ReLU, sigmoid, softmax, and the
 * verifier hey_jarvis keeps behind an `If`), on tensors of one or two dimensions. A model with any
 * other operator is refused with `OnnxModelError`, and runs in onnxruntime instead.
 */

const SUPPORTED = new Set([
  ...Object.keys(UNARY),
  ...Object.keys(BINARY),
  'Constant',
  'Flatten',
  'Gemm',
  'ReduceMean',
  'Softmax',
  'If',
]);

/** A dense layer of constant weights on one row, as a product on the kernels: the weights' rows times the row. */
function denseProduct(node: OnnxNode, constants: Map<string, Weights>, kernels: RowKernels): RowProduct | undefined {
  const [, weightsName, biasName] = node.inputs;
  const weights = constants.get(weightsName ?? '');
  const bias = biasName ? constants.get(biasName) : undefined;
  const plain = (node.floats.get('alpha') ?? 1) === 1 && (node.floats.get('beta') ?? 1) === 1;
  if (!weights || weights.dims.length !== 2 || node.ints.get('transA')?.[0] === 1 || !plain) return undefined;
  const transB = node.ints.get('transB')?.[0] === 1;
  const [rows, width] = (transB ? weights.dims : [weights.dims[1], weights.dims[0]]) as [number, number];
  let matrix = weights.data;
  if (!transB) {
    matrix = new Float32Array(rows * width);
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < width; c++) matrix[r * width + c] = weights.data[c * rows + r] as number;
  }
  if (bias && bias.data.length !== rows) return undefined;
  return {
    weights: rowsBlock(kernels, matrix, width),
    x: kernels.block(rowWidth(width)),
    bias: filled(kernels, bias?.data ?? new Float32Array(rows)),
    out: kernels.block(rows),
    rows,
    width: rowWidth(width),
    relu: false,
  };
}

/** A graph and those its nodes hold (an `If`'s branches), depth first. */
function* graphsIn(graph: OnnxGraph): Generator<OnnxGraph> {
  yield graph;
  for (const node of graph.nodes) for (const inner of node.graphs.values()) yield* graphsIn(inner);
}

export class ClassifierNetwork {
  private constructor(
    private readonly kernels: RowKernels,
    /** The dense layers' products, by node. */
    private readonly dense: Map<OnnxNode, RowProduct>,
    private readonly graph: OnnxGraph,
    private readonly constants: Map<string, Weights>,
    readonly inputName: string,
    /** The dimensions it reads: [1, embeddings, 96]. */
    readonly inputDims: (number | undefined)[],
    readonly outputName: string,
    /** The dimensions it gives: [1] or [1, 1] for a score, [1, classes] for a multi-class model. */
    readonly outputDims: (number | undefined)[],
  ) {}

  /** From the bytes of an openWakeWord classifier; `OnnxModelError` when it holds what hark does not run. */
  static fromOnnx(model: Uint8Array, kernels: RowKernels): ClassifierNetwork {
    const graph = onnxGraph(model);
    const graphs = [...graphsIn(graph)];
    const nodes = graphs.flatMap((g) => g.nodes);
    for (const node of nodes)
      if (!SUPPORTED.has(node.op)) throw new OnnxModelError(`an operator hark does not run: ${node.op}`);
    const input = graph.inputs[0];
    const output = graph.outputs[0];
    if (graph.inputs.length !== 1 || !input || !output) throw new OnnxModelError('not one input and an output');
    const constants = onnxConstants(model);
    const dense = new Map<OnnxNode, RowProduct>();
    for (const node of nodes) {
      const product = node.op === 'Gemm' ? denseProduct(node, constants, kernels) : undefined;
      if (product) dense.set(node, product);
    }
    // The dense layers' weights are on the kernels now: only what other nodes read stays here.
    const read = new Set<string>();
    for (const g of graphs) {
      for (const node of g.nodes) {
        (dense.has(node) ? node.inputs.slice(0, 1) : node.inputs).forEach((name) => read.add(name));
        node.outputs.forEach((name) => read.add(name));
      }
      g.outputs.forEach(({ name }) => read.add(name));
    }
    for (const name of constants.keys()) if (!read.has(name)) constants.delete(name);
    return new ClassifierNetwork(kernels, dense, graph, constants, input.name, input.dims, output.name, output.dims);
  }

  /** The model's output for `input` (of `inputDims`). */
  run(input: Float32Array): Float32Array {
    const values = new Map<string, Tensor>();
    values.set(this.inputName, { data: input, dims: this.inputDims.map((d) => d ?? 1) });
    return this.evaluate(this.graph, values)[0]?.data ?? new Float32Array(0);
  }

  private value(values: Map<string, Tensor>, name: string): Tensor {
    const known = values.get(name);
    if (known) return known;
    const constant = this.constants.get(name);
    if (!constant) throw new OnnxModelError(`no value named ${name}`);
    return { data: constant.data, dims: [...constant.dims] };
  }

  private evaluate(graph: OnnxGraph, outer: Map<string, Tensor>): Tensor[] {
    const values = new Map(outer);
    for (const node of graph.nodes) {
      // A dense layer reads its weights and bias on the kernels.
      const names = this.dense.has(node) ? node.inputs.slice(0, 1) : node.inputs;
      const inputs = names.map((name) => (name === '' ? undefined : this.value(values, name)));
      const results = this.apply(node, inputs, values);
      node.outputs.forEach((name, i) => {
        const result = results[i];
        if (result) values.set(name, result);
      });
    }
    return graph.outputs.map(({ name }) => this.value(values, name));
  }

  /** A dense layer on each row of `input` ([rows, width]), on the kernels. */
  private denseRows(product: RowProduct, input: Tensor): Tensor {
    const [count, width] = input.dims as [number, number];
    if (input.dims.length !== 2 || rowWidth(width) !== product.width)
      throw new OnnxModelError(`a dense layer of ${product.width} inputs on ${input.dims.join('×')}`);
    const data = new Float32Array(count * product.rows);
    for (let r = 0; r < count; r++) {
      product.x.data.set(input.data.subarray(r * width, (r + 1) * width));
      this.kernels.rows(product);
      data.set(product.out.data.subarray(0, product.rows), r * product.rows);
    }
    return { data, dims: [count, product.rows] };
  }

  private apply(node: OnnxNode, inputs: (Tensor | undefined)[], values: Map<string, Tensor>): Tensor[] {
    const [a, b, c] = inputs;
    const first = (): Tensor => {
      if (!a) throw new OnnxModelError(`${node.op} without its input`);
      return a;
    };
    const unary = UNARY[node.op];
    if (unary) return [{ data: first().data.map(unary), dims: first().dims }];
    const binary = BINARY[node.op];
    if (binary) {
      if (!b) throw new OnnxModelError(`${node.op} without its second input`);
      return [broadcast(first(), b, binary)];
    }
    switch (node.op) {
      case 'Constant':
        return node.outputs.map((name) => this.value(values, name));
      case 'Flatten': {
        const axis = node.ints.get('axis')?.[0] ?? 1;
        const dims = first().dims;
        const at = axis < 0 ? dims.length + axis : axis;
        return [{ data: first().data, dims: [size(dims.slice(0, at)), size(dims.slice(at))] }];
      }
      case 'Gemm': {
        const product = this.dense.get(node);
        if (product) return [this.denseRows(product, first())];
        if (!b) throw new OnnxModelError('Gemm without its weights');
        return [gemm(node, first(), b, c)];
      }
      case 'ReduceMean': {
        const axes = node.ints.get('axes') ?? [-1];
        if (node.ints.get('keepdims')?.[0] === 0 || axes.length !== 1)
          throw new OnnxModelError('ReduceMean other than over one axis, kept');
        return [
          alongLast(first(), axes[0] as number, 'ReduceMean', (row) =>
            Float32Array.of(row.reduce((s, v) => s + v, 0) / row.length),
          ),
        ];
      }
      case 'Softmax': {
        const axis = node.ints.get('axis')?.[0] ?? -1;
        return [
          alongLast(first(), axis, 'Softmax', (row) => {
            const most = Math.max(...row);
            const e = row.map((v) => Math.exp(v - most));
            const sum = e.reduce((s, v) => s + v, 0);
            return e.map((v) => v / sum);
          }),
        ];
      }
      case 'If': {
        const branch = node.graphs.get(first().data[0] ? 'then_branch' : 'else_branch');
        if (!branch) throw new OnnxModelError('If without its branches');
        return this.evaluate(branch, values);
      }
      default:
        throw new OnnxModelError(`an operator hark does not run: ${node.op}`);
    }
  }
}
