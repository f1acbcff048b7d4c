import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';

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

/** A local file as a `data:` URL, for multimodal blocks. */
export async function fileToDataUrl(path: string): Promise<string> {
  return dataUrl(await readFile(path), mimeTypeOf(path));
}
