/**
 * Protocol Buffers' wire format, as far as taking an ONNX model apart and putting pieces of it
 * back together needs: a message is read as its fields in order (each kept as the bytes it was
 * written as), and written back from fields. Nothing here knows ONNX's schema.
 */

/** The wire types ONNX uses: a varint, 8 or 4 bytes, or bytes with their length before them (a string, a message, packed numbers). */
const VARINT = 0;
const FIXED64 = 1;
const LENGTH_DELIMITED = 2;
const FIXED32 = 5;

export interface WireField {
  field: number;
  wireType: number;
  /** The value as written: a varint's bytes, a fixed number's bytes, or the bytes after a length. */
  bytes: Uint8Array;
}

export class ProtobufError extends Error {}

/** A varint at `at`: its value (exact below 2^53, enough for ONNX's lengths, dims and attributes) and its end. */
function varintAt(buffer: Uint8Array, at: number): { value: number; end: number } {
  let value = 0;
  let scale = 1;
  for (let i = at; i < buffer.length && i < at + 10; i++) {
    const byte = buffer[i] as number;
    value += (byte & 0x7f) * scale;
    scale *= 128;
    if (byte < 0x80) return { value, end: i + 1 };
  }
  throw new ProtobufError(`a varint at byte ${at} runs past its end`);
}

/** The fields of one message, in the order written. */
export function readFields(message: Uint8Array): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  while (at < message.length) {
    const key = varintAt(message, at);
    const field = Math.floor(key.value / 8);
    const wireType = key.value % 8;
    let start = key.end;
    let end: number;
    if (wireType === VARINT) end = varintAt(message, start).end;
    else if (wireType === FIXED64) end = start + 8;
    else if (wireType === FIXED32) end = start + 4;
    else if (wireType === LENGTH_DELIMITED) {
      const length = varintAt(message, start);
      start = length.end;
      end = start + length.value;
    } else throw new ProtobufError(`field ${field} has wire type ${wireType}, which ONNX does not use`);
    if (end > message.length) throw new ProtobufError(`field ${field} runs past the end of its message`);
    fields.push({ field, wireType, bytes: message.subarray(start, end) });
    at = end;
  }
  return fields;
}

function varint(value: number): number[] {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 128) | 0x80);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return out;
}

/** One message from its fields. */
export function writeFields(fields: readonly WireField[]): Uint8Array {
  const parts: Uint8Array[] = [];
  for (const { field, wireType, bytes } of fields) {
    parts.push(Uint8Array.from(varint(field * 8 + wireType)));
    if (wireType === LENGTH_DELIMITED) parts.push(Uint8Array.from(varint(bytes.length)));
    parts.push(bytes);
  }
  return Buffer.concat(parts);
}

/** A field of bytes: a string, or a message. */
export function bytesField(field: number, value: Uint8Array | string): WireField {
  const bytes = typeof value === 'string' ? new TextEncoder().encode(value) : value;
  return { field, wireType: LENGTH_DELIMITED, bytes };
}

/** A field holding a number from 0 to 2^53. */
export function varintField(field: number, value: number): WireField {
  return { field, wireType: VARINT, bytes: Uint8Array.from(varint(value)) };
}

export function asString(field: WireField): string {
  return new TextDecoder().decode(field.bytes);
}

/** The numbers of a repeated integer field, packed or written one by one. */
export function integers(fields: readonly WireField[], field: number): number[] {
  const out: number[] = [];
  for (const f of fields) {
    if (f.field !== field) continue;
    if (f.wireType === VARINT) out.push(varintAt(f.bytes, 0).value);
    else if (f.wireType === LENGTH_DELIMITED) {
      for (let at = 0; at < f.bytes.length;) {
        const next = varintAt(f.bytes, at);
        out.push(next.value);
        at = next.end;
      }
    }
  }
  return out;
}
