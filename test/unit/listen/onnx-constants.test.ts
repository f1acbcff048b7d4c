import { describe, expect, it } from 'vitest';
import { nameEndingWith, onnxConstants, OnnxModelError, weightsOf } from '../../../src/listen/onnx/onnx-constants.js';
import { bytesField, varintField, writeFields, type WireField } from '../../../src/listen/onnx/protobuf-wire.js';

const FIXED32 = 5;

function floatBytes(values: number[]): Uint8Array {
  const bytes = new Uint8Array(values.length * 4);
  const view = new DataView(bytes.buffer);
  values.forEach((v, i) => view.setFloat32(i * 4, v, true));
  return bytes;
}

/** A TensorProto: dims, FLOAT, its name, and its numbers as raw_data, packed float_data, or one float_data field each. */
function tensor(name: string, dims: number[], values: number[], as: 'raw' | 'packed' | 'each'): Uint8Array {
  const data: WireField[] =
    as === 'raw'
      ? [bytesField(9, floatBytes(values))]
      : as === 'packed'
        ? [bytesField(4, floatBytes(values))]
        : values.map((v) => ({ field: 4, wireType: FIXED32, bytes: floatBytes([v]) }));
  return writeFields([...dims.map((d) => varintField(1, d)), varintField(2, 1), bytesField(8, name), ...data]);
}

/** A model whose graph has two initializers and an If whose branch holds a Constant. */
function model(): Uint8Array {
  const constant = writeFields([
    bytesField(2, 'branch.weight'),
    bytesField(4, 'Constant'),
    bytesField(5, writeFields([bytesField(1, 'value'), bytesField(5, tensor('', [2], [5, 6], 'each'))])),
  ]);
  const branch = writeFields([bytesField(1, constant)]);
  const ifNode = writeFields([
    bytesField(4, 'If'),
    bytesField(5, writeFields([bytesField(1, 'then_branch'), bytesField(6, branch)])),
  ]);
  const graph = writeFields([
    bytesField(1, ifNode),
    bytesField(5, tensor('a.raw', [2, 2], [1, 2, 3, 4], 'raw')),
    bytesField(5, tensor('b.packed', [3], [0.5, -1, 2], 'packed')),
  ]);
  return writeFields([varintField(1, 8), bytesField(7, graph)]);
}

describe('onnxConstants', () => {
  it("reads every float tensor by name: initializers (raw or float_data, packed or not) and a branch's Constant", () => {
    const all = onnxConstants(model());
    expect([...weightsOf(all, 'a.raw', [2, 2])]).toEqual([1, 2, 3, 4]);
    expect([...weightsOf(all, 'b.packed', [3])]).toEqual([0.5, -1, 2]);
    expect([...weightsOf(all, 'branch.weight', [2])]).toEqual([5, 6]);
    expect(nameEndingWith(all, '.packed', [3])).toBe('b.packed');
  });

  it('says what it expected when a tensor is missing or has other dimensions', () => {
    const all = onnxConstants(model());
    expect(() => weightsOf(all, 'a.raw', [4])).toThrow(/a\.raw of 4, found 2×2/);
    expect(() => weightsOf(all, 'nothing', [1])).toThrow(OnnxModelError);
    expect(() => nameEndingWith(all, '.weight', [3])).toThrow(/found 0/);
  });
});
