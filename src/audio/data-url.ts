import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import type { MediaKind } from '../contract/models.js';

const MIME_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.bmp': 'image/bmp',
  '.mp4': 'video/mp4',
  '.webm': 'video/webm',
  '.mov': 'video/quicktime',
  '.mkv': 'video/x-matroska',
  '.wav': 'audio/wav',
  '.mp3': 'audio/mpeg',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/opus',
  '.m4a': 'audio/mp4',
  '.flac': 'audio/flac',
};

export function mimeTypeOf(path: string): string {
  const type = MIME_TYPES[extname(path).toLowerCase()];
  if (!type) throw new Error(`${path}: unknown media type (known: ${Object.keys(MIME_TYPES).join(' ')})`);
  return type;
}

export function dataUrl(bytes: Uint8Array, mimeType: string): string {
  return `data:${mimeType};base64,${Buffer.from(bytes).toString('base64')}`;
}

const MEDIA_WORDS: Record<string, string> = { image: 'an image', video: 'a video', audio: 'audio' };

/** How each image type begins: the bytes that tell an image from something given its name. */
const IMAGE_SIGNATURES: Record<string, (bytes: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])),
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) =>
    b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP',
  'image/bmp': (b) => b.subarray(0, 2).toString('latin1') === 'BM',
};

/**
 * A local file as a `data:` URL, to attach as `kind`; refused (an Error naming the file) when it
 * is not that kind of media by its name, or, for an image, by its first bytes.
 */
export async function attachmentDataUrl(path: string, kind: MediaKind): Promise<string> {
  const type = mimeTypeOf(path);
  const [major = ''] = type.split('/');
  if (major !== kind) throw new Error(`${path}: is ${MEDIA_WORDS[major] ?? type}, not ${MEDIA_WORDS[kind]}`);
  const bytes = await readFile(path);
  if (kind === 'image' && !IMAGE_SIGNATURES[type]?.(bytes)) {
    throw new Error(`${path}: is not an image: its bytes are not ${type.slice('image/'.length).toUpperCase()}`);
  }
  return dataUrl(bytes, type);
}
