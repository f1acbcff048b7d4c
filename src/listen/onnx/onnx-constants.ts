import { asString, integers, ProtobufError, readFields, type WireField } from './protobuf-wire.js';

/**
 * The float tensors an ONNX model holds, by name: its graph's initializers and the values of its
 * `Constant` nodes, in its subgraphs (an `If`'s branches) too. Enough to run a network whose
 * shape is known in code from the weights it was trained with.
 */

export interface Weights {
  dims: number[];
  data: Float32Array;
}

// ONNX's field numbers (onnx.proto).
const MODEL_GRAPH = 7;
const GRAPH = { node: 1, initializer: 5 } as const;
const NODE = { output: 2, opType: 4, attribute: 5 } as const;
const ATTRIBUTE = { tensor: 5, graph: 6, graphs: 11 } as const;
const TENSOR = { dims: 1, dataType: 2, floatData: 4, name: 8, rawData: 9 } as const;
const FLOAT = 1;

export class OnnxModelError extends Error {
  override readonly name = 'OnnxModelError';
}

/** A model hark's own code cannot read, or holds what it does not run: onnxruntime's to try. */
export function notForHark(error: unknown): boolean {
  return error instanceof OnnxModelError || error instanceof ProtobufError;
}

function floats(tensor: WireField[]): Float32Array {
  const raw = tensor.find((f) => f.field === TENSOR.rawData);
  // float_data is packed, or one number per field: either way its fields' bytes in order.
  const parts = raw ? [raw] : tensor.filter((f) => f.field === TENSOR.floatData);
  const bytes = Buffer.concat(parts.map((f) => f.bytes));
  // Little-endian floats, copied out: the model's bytes need not be 4-byte aligned.
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = view.getFloat32(i * 4, true);
  return out;
}

function addTensor(into: Map<string, Weights>, bytes: Uint8Array, name?: string): void {
  const tensor = readFields(bytes);
  if ((integers(tensor, TENSOR.dataType)[0] ?? 0) !== FLOAT) return;
  const named = tensor.find((f) => f.field === TENSOR.name);
  const key = name ?? (named ? asString(named) : '');
  if (key) into.set(key, { dims: integers(tensor, TENSOR.dims), data: floats(tensor) });
}

function collect(graph: Uint8Array, into: Map<string, Weights>): void {
  for (const field of readFields(graph)) {
    if (field.field === GRAPH.initializer) addTensor(into, field.bytes);
    if (field.field !== GRAPH.node) continue;
    const node = readFields(field.bytes);
    const opType = node.find((f) => f.field === NODE.opType);
    const output = node.find((f) => f.field === NODE.output);
    for (const attribute of node.filter((f) => f.field === NODE.attribute).map((f) => readFields(f.bytes))) {
      for (const value of attribute) {
        if (value.field === ATTRIBUTE.tensor && opType && asString(opType) === 'Constant' && output) {
          addTensor(into, value.bytes, asString(output));
        }
        if (value.field === ATTRIBUTE.graph || value.field === ATTRIBUTE.graphs) collect(value.bytes, into);
      }
    }
  }
}

/** Every float tensor of the model, by name. */
export function onnxConstants(model: Uint8Array): Map<string, Weights> {
  const graph = readFields(model).find((f) => f.field === MODEL_GRAPH);
  if (!graph) throw new OnnxModelError('not an ONNX model: it has no graph');
  const out = new Map<string, Weights>();
  collect(graph.bytes, out);
  return out;
}

/** The name of the one tensor whose name ends with `suffix` and has these dimensions. */
export function nameEndingWith(all: Map<string, Weights>, suffix: string, dims: readonly number[]): string {
  const matches = [...all].filter(([name, w]) => name.endsWith(suffix) && sameDims(w.dims, dims));
  if (matches.length !== 1) {
    throw new OnnxModelError(`expected one tensor named …${suffix} of ${dims.join('×')}, found ${matches.length}`);
  }
  return (matches[0] as [string, Weights])[0];
}

/** The tensor `name`, which must have these dimensions. */
export function weightsOf(all: Map<string, Weights>, name: string, dims: readonly number[]): Float32Array {
  const weights = all.get(name);
  if (!weights || !sameDims(weights.dims, dims)) {
    throw new OnnxModelError(
      `expected a tensor ${name} of ${dims.join('×')}${weights ? `, found ${weights.dims.join('×')}` : ''}`,
    );
  }
  const count = dims.reduce((product, d) => product * d, 1);
  if (weights.data.length !== count) {
    throw new OnnxModelError(`the tensor ${name} holds ${weights.data.length} numbers, not ${count}`);
  }
  return weights.data;
}

function sameDims(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}
