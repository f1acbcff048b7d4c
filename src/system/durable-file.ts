import { open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { cannotWrite, writeAtomically } from './atomic-file.js';

/**
 * Writes `text` whole (under a hidden name, renamed into place) and durably: the file is synced
 * before the rename and its directory after it, so a power cut (an SD card) leaves the old file
 * or the new one, never an empty one. A failure says which file could not be written, and why.
 */
export async function writeDurably(path: string, text: string): Promise<void> {
  try {
    await writeAtomically(path, async (partial) => {
      const file = await open(partial, 'wx', 0o600);
      try {
        await file.writeFile(text);
        await file.sync();
      } finally {
        await file.close();
      }
    });
    await syncDirectory(dirname(path));
  } catch (error) {
    const failure = error as NodeJS.ErrnoException;
    throw failure.code ? cannotWrite(path, failure) : error;
  }
}

async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems cannot sync a directory: the rename is then as durable as they make it.
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL') throw error;
  } finally {
    await handle.close();
  }
}
