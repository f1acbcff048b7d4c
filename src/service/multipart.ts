import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

export interface MultipartBody {
  contentType: string;
  /** The body in pieces: the file's bytes are sent as they are, never copied into a bigger buffer. */
  parts: readonly Uint8Array[];
}

/**
 * A multipart/form-data body of text fields and one file. Built by hand rather than with
 * FormData, whose Blob would copy a 1 MB chunk each time and keep the copy until a GC.
 */
export function multipartBody(
  fields: Record<string, string | undefined>,
  file: { field: string; name: string; type: string; bytes: Uint8Array },
): MultipartBody {
  const boundary = `----hark${randomBytes(12).toString('hex')}`;
  const quoted = (value: string): string => value.replace(/["\r\n]/g, (c) => encodeURIComponent(c));
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.name)}"\r\n` +
    `Content-Type: ${file.type}\r\n\r\n`;
  let tail = '\r\n';
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    tail += `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`;
  }
  tail += `--${boundary}--\r\n`;
  return {
    contentType: `multipart/form-data; boundary=${boundary}`,
    parts: [Buffer.from(head), file.bytes, Buffer.from(tail)],
  };
}

/** A body as undici sends it: JSON text as it is; pieces as a stream made afresh for every attempt, with their length. */
export function wireBody(body: string | readonly Uint8Array[]): { body: string | Readable; length?: number } {
  if (typeof body === 'string') return { body };
  return {
    body: Readable.from(body, { objectMode: false }),
    length: body.reduce((sum, piece) => sum + piece.length, 0),
  };
}
