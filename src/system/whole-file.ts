import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Writes a file under a temporary name beside it and renames it into place only when `write`
 * succeeded: a failure never leaves a cut or wrong file under the name the user asked for.
 */
export async function writeWhole<T>(path: string, write: (partial: string) => Promise<T>): Promise<T> {
  const { target, partial } = wholeFileNames(path);
  try {
    const result = await write(partial);
    await rename(partial, target);
    return result;
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/**
 * Where a file asked for as `path` goes, and the hidden name beside it to write it under until
 * it is complete. A symbolic link is followed: the file it names is replaced, the link stays.
 */
export function wholeFileNames(path: string): { target: string; partial: string } {
  let target = path;
  try {
    target = realpathSync(path);
  } catch {
    // Not there yet (or a link to nothing): written as named.
  }
  return { target, partial: join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.partial`) };
}
