import type { FileHandle } from 'node:fs/promises';
import { readWavInfo, type WavInfo } from './wav-header.js';

/** Bytes enough for a WAV's chunks before its samples. */
const WAV_HEAD_BYTES = 64 * 1024;

/** What an open file's first bytes say of it as a WAV; throws as readWavInfo does for anything else. */
export async function readWavHead(file: FileHandle): Promise<WavInfo> {
  const { size } = await file.stat();
  const head = Buffer.alloc(Math.min(size, WAV_HEAD_BYTES));
  await file.read(head, 0, head.length, 0);
  return readWavInfo(head, size);
}
