import { OnnxModelError } from './onnx-constants.js';
import { asString, readFields, type WireField } from './protobuf-wire.js';

/**
 * An ONNX model's graph as the networks hark runs itself read it: its nodes in order (operator,
 * inputs, outputs, attributes), the graphs an `If` holds, and the shapes of its inputs and
 * outputs. The tensors' values are `onnx-constants.ts`'s.
 */

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  /** Integer attributes (one number or a list), signed. */
  ints: Map<string, number[]>;
  floats: Map<string, number>;
  graphs: Map<string, OnnxGraph>;
}

/** A value's name and its dimensions (undefined where the model leaves one open). */
export interface OnnxValue {
  name: string;
  dims: (number | undefined)[];
}

export interface OnnxGraph {
  nodes: OnnxNode[];
  /** The inputs a caller gives: those without an initializer. */
  inputs: OnnxValue[];
  outputs: OnnxValue[];
}

// ONNX's field numbers (onnx.proto).
const MODEL_GRAPH = 7;
const GRAPH = { node: 1, initializer: 5, input: 11, output: 12 } as const;
const NODE = { input: 1, output: 2, op: 4, attribute: 5 } as const;
const ATTRIBUTE = { name: 1, f: 2, i: 3, g: 6, ints: 8 } as const;
const VALUE_INFO = { name: 1, type: 2 } as const;

/** A varint read as ONNX's signed 64-bit integers (axis -1 is written as 2^64 - 1). */
function signedAt(bytes: Uint8Array, at: number): { value: number; end: number } {
  let value = 0n;
  let shift = 0n;
  for (let i = at; i < bytes.length && i < at + 10; i++) {
    const byte = bytes[i] as number;
    value |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
    if (byte < 0x80) return { value: Number(BigInt.asIntN(64, value)), end: i + 1 };
  }
  throw new OnnxModelError(`a varint at byte ${at} runs past its end`);
}

function signedInts(field: WireField): number[] {
  if (field.wireType === 0) return [signedAt(field.bytes, 0).value];
  const out: number[] = [];
  for (let at = 0; at < field.bytes.length;) {
    const next = signedAt(field.bytes, at);
    out.push(next.value);
    at = next.end;
  }
  return out;
}

function fieldsOf(fields: WireField[], field: number): WireField[] {
  return fields.filter((f) => f.field === field);
}

function nameOf(fields: WireField[]): string {
  const name = fields.find((f) => f.field === 1);
  return name ? asString(name) : '';
}

/** A value's dimensions from its ValueInfoProto (type → tensor_type → shape → dim values). */
function dimsOf(valueInfo: WireField[]): (number | undefined)[] {
  const type = valueInfo.find((f) => f.field === VALUE_INFO.type);
  const tensor = type && readFields(type.bytes).find((f) => f.field === 1);
  const shape = tensor && readFields(tensor.bytes).find((f) => f.field === 2);
  if (!shape) return [];
  return fieldsOf(readFields(shape.bytes), 1).map((dim) => {
    const value = readFields(dim.bytes).find((f) => f.field === 1);
    return value ? signedAt(value.bytes, 0).value : undefined;
  });
}

function nodeOf(bytes: Uint8Array): OnnxNode {
  const node = readFields(bytes);
  const ints = new Map<string, number[]>();
  const floats = new Map<string, number>();
  const graphs = new Map<string, OnnxGraph>();
  for (const field of fieldsOf(node, NODE.attribute)) {
    const attribute = readFields(field.bytes);
    const name = nameOf(attribute);
    const f = attribute.find((x) => x.field === ATTRIBUTE.f);
    if (f) floats.set(name, new DataView(f.bytes.buffer, f.bytes.byteOffset, 4).getFloat32(0, true));
    const numbers = attribute.filter((x) => x.field === ATTRIBUTE.i || x.field === ATTRIBUTE.ints).flatMap(signedInts);
    if (numbers.length) ints.set(name, numbers);
    const g = attribute.find((x) => x.field === ATTRIBUTE.g);
    if (g) graphs.set(name, graphOf(g.bytes));
  }
  const op = node.find((x) => x.field === NODE.op);
  return {
    op: op ? asString(op) : '',
    inputs: fieldsOf(node, NODE.input).map(asString),
    outputs: fieldsOf(node, NODE.output).map(asString),
    ints,
    floats,
    graphs,
  };
}

function graphOf(bytes: Uint8Array): OnnxGraph {
  const fields = readFields(bytes);
  const initialized = new Set(fieldsOf(fields, GRAPH.initializer).map((f) => nameOf(readFields(f.bytes))));
  const values = (field: number): OnnxValue[] =>
    fieldsOf(fields, field)
      .map((f) => readFields(f.bytes))
      .map((v) => ({ name: nameOf(v), dims: dimsOf(v) }));
  return {
    nodes: fieldsOf(fields, GRAPH.node).map((f) => nodeOf(f.bytes)),
    inputs: values(GRAPH.input).filter((v) => !initialized.has(v.name)),
    outputs: values(GRAPH.output),
  };
}

/** The main graph of a model's bytes; `OnnxModelError` when there is none. */
export function onnxGraph(model: Uint8Array): OnnxGraph {
  const graph = readFields(model).find((f) => f.field === MODEL_GRAPH);
  if (!graph) throw new OnnxModelError('not an ONNX model: it has no graph');
  return graphOf(graph.bytes);
}
