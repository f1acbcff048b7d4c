import { randomBytes } from 'node:crypto';
import { realpath, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file under a temporary name beside it and renames it into place only when `write`
 * succeeded: a failure never leaves a cut or wrong file under the name the user asked for. A
 * symbolic link is followed: the file it names is replaced, the link stays.
 */
export async function writeWhole<T>(path: string, write: (partial: string) => Promise<T>): Promise<T> {
  const target = await realpath(path).catch(() => path);
  const partial = partialPath(target);
  try {
    const result = await write(partial);
    await rename(partial, target);
    return result;
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/** A hidden name beside `path` to write it under until it is complete. */
export function partialPath(path: string): string {
  return join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.partial`);
}
