import {
  asString,
  bytesField,
  integers,
  readFields,
  varintField,
  writeFields,
  type WireField,
} from '../onnx/protobuf-wire.js';

/**
 * openWakeWord's embedding model is a chain of convolutions over 76 mel frames, valid along time
 * (no padding there), with time halved by three of its pools: a window 8 frames later shares
 * almost all of its inner rows with the one before. Cut after each pool that halves time, the
 * model becomes stages that can be fed only the rows that are new, each keeping the last rows
 * of its input that its new rows still need (`context`).
 */
export interface EmbeddingStage {
  /** The stage as an ONNX model of its own: input and output [1, channels, rows, width]. */
  model: Uint8Array;
  /** Rows of its input kept to compute its next rows with. */
  context: number;
  /** How many input rows make one output row (2 for a stage ending at a pool that halves time). */
  shrink: number;
}

// ONNX's field numbers (onnx.proto).
const MODEL_GRAPH = 7;
const GRAPH = { node: 1, name: 2, initializer: 5, input: 11, output: 12 } as const;
const NODE = { input: 1, output: 2, opType: 4, attribute: 5 } as const;
const ATTRIBUTE = { name: 1, i: 3, s: 4, ints: 8 } as const;
const TENSOR_NAME = 8;
const VALUE_INFO = { name: 1, type: 2 } as const;
const TYPE_TENSOR = 1;
const TENSOR_TYPE = { elemType: 1, shape: 2 } as const;
const SHAPE_DIM = 1;
const DIM_PARAM = 2;
const FLOAT = 1;

interface Node {
  fields: WireField[];
  opType: string;
  inputs: string[];
  outputs: string[];
  ints: Map<string, number[]>;
  strings: Map<string, string>;
}

function node(bytes: Uint8Array): Node {
  const fields = readFields(bytes);
  const texts = (n: number): string[] => fields.filter((f) => f.field === n).map(asString);
  const attributes = fields.filter((f) => f.field === NODE.attribute).map((f) => readFields(f.bytes));
  const nameOf = (a: WireField[]): string => asString(a.find((f) => f.field === ATTRIBUTE.name) as WireField);
  return {
    fields,
    opType: texts(NODE.opType)[0] ?? '',
    inputs: texts(NODE.input),
    outputs: texts(NODE.output),
    // An attribute's integers: one (`i`) or several (`ints`).
    ints: new Map(attributes.map((a) => [nameOf(a), [...integers(a, ATTRIBUTE.i), ...integers(a, ATTRIBUTE.ints)]])),
    strings: new Map(
      attributes.flatMap((a) => a.filter((f) => f.field === ATTRIBUTE.s).map((f) => [nameOf(a), asString(f)])),
    ),
  };
}

/** How a node changes the rows along time: -2 (a convolution 3 tall), /2 (a pool 2 tall), or not at all. */
function timeStep(n: Node): 'none' | 'conv' | 'pool' | undefined {
  if (['LeakyRelu', 'Relu', 'Max'].includes(n.opType)) return 'none';
  const kernel = n.ints.get('kernel_shape') ?? [];
  const strides = n.ints.get('strides') ?? [1, 1];
  const pads = n.ints.get('pads') ?? [0, 0, 0, 0];
  const autoPad = n.strings.get('auto_pad') ?? 'NOTSET';
  if (kernel.length !== 2 || pads[0] !== 0 || pads[2] !== 0 || !['NOTSET', 'VALID'].includes(autoPad)) return undefined;
  if (n.opType === 'Conv' && (n.ints.get('dilations') ?? [1, 1])[0] === 1 && strides[0] === 1) {
    return kernel[0] === 1 ? 'none' : kernel[0] === 3 ? 'conv' : undefined;
  }
  if (n.opType === 'MaxPool' && strides[0] === kernel[0] && (n.ints.get('ceil_mode') ?? [0])[0] === 0) {
    return kernel[0] === 1 ? 'none' : kernel[0] === 2 ? 'pool' : undefined;
  }
  return undefined;
}

/** A tensor's value info: float, four dimensions of any size. */
function valueInfo(field: number, name: string): WireField {
  const dims = ['batch', 'channels', 'rows', 'width'].map((d) =>
    bytesField(SHAPE_DIM, writeFields([bytesField(DIM_PARAM, d)])),
  );
  const tensor = writeFields([
    varintField(TENSOR_TYPE.elemType, FLOAT),
    bytesField(TENSOR_TYPE.shape, writeFields(dims)),
  ]);
  const type = writeFields([bytesField(TYPE_TENSOR, tensor)]);
  return bytesField(field, writeFields([bytesField(VALUE_INFO.name, name), bytesField(VALUE_INFO.type, type)]));
}

/**
 * The stages of an embedding model, or undefined when it is not a chain hark knows how to cut
 * (a reshape in, convolutions, activations and pools, a reshape out; nothing padded along time).
 */
export function cutAtTimePools(model: Uint8Array): EmbeddingStage[] | undefined {
  const modelFields = readFields(model);
  const graphField = modelFields.find((f) => f.field === MODEL_GRAPH);
  if (!graphField) return undefined;
  const graph = readFields(graphField.bytes);
  const nodes = graph.filter((f) => f.field === GRAPH.node).map((f) => node(f.bytes));
  const initializers = graph.filter((f) => f.field === GRAPH.initializer);
  const initializerName = (f: WireField): string =>
    asString(readFields(f.bytes).find((t) => t.field === TENSOR_NAME) as WireField);
  const constants = new Set(initializers.map(initializerName));
  const body = nodes.slice(1, -1);
  if (nodes[0]?.opType !== 'Reshape' || nodes.at(-1)?.opType !== 'Reshape' || body.length === 0) return undefined;
  const stages: Node[][] = [[]];
  let flowing = nodes[0].outputs[0];
  for (const n of body) {
    const step = timeStep(n);
    if (step === undefined || n.inputs[0] !== flowing || n.outputs.length !== 1) return undefined;
    if (!n.inputs.slice(1).every((i) => constants.has(i))) return undefined;
    flowing = n.outputs[0];
    (stages.at(-1) as Node[]).push(n);
    if (step === 'pool') stages.push([]);
  }
  if (stages.at(-1)?.length === 0) stages.pop();
  const name = graph.find((f) => f.field === GRAPH.name);
  return stages.map((chain) => {
    const used = new Set(chain.flatMap((n) => n.inputs));
    const stageGraph = writeFields([
      ...chain.map((n) => bytesField(GRAPH.node, writeFields(n.fields))),
      ...(name ? [name] : []),
      ...initializers.filter((f) => used.has(initializerName(f))),
      valueInfo(GRAPH.input, chain[0]?.inputs[0] as string),
      valueInfo(GRAPH.output, chain.at(-1)?.outputs[0] as string),
    ]);
    const steps = chain.map(timeStep);
    const convs = steps.filter((s) => s === 'conv').length;
    const pooled = steps.at(-1) === 'pool';
    return {
      model: writeFields(modelFields.map((f) => (f.field === MODEL_GRAPH ? bytesField(MODEL_GRAPH, stageGraph) : f))),
      // Each convolution 3 rows tall (the only kind `timeStep` lets through) needs 2 rows more than it gives.
      context: 2 * convs,
      shrink: pooled ? 2 : 1,
    };
  });
}
