import { randomBytes } from 'node:crypto';
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { chmod, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';

/** A file being written under a hidden name (`partial`) beside where it goes (`target`). */
export interface AtomicFile {
  target: string;
  partial: string;
}

/**
 * Writes a file under a temporary name beside it and renames it into place only when `write`
 * succeeded: a failure never leaves a cut or wrong file under the name the user asked for.
 */
export async function writeAtomically<T>(path: string, write: (partial: string) => Promise<T>): Promise<T> {
  const file = atomicFile(path);
  let result: T;
  try {
    result = await write(file.partial);
  } catch (error) {
    throw await abandonAtomicFile(file, error, path);
  }
  await finishAtomicFile(file, true);
  return result;
}

const WHY: Record<string, string> = {
  ENOENT: 'files cannot be made there',
  ENOTDIR: 'files cannot be made there',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'a read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
};

/**
 * After `error`, the hidden file is removed (a file already under the name stays as it was), and
 * the failure is told of the file the user asked for as `path`: they never named the other.
 */
export async function abandonAtomicFile(file: AtomicFile, error: unknown, path: string): Promise<unknown> {
  await finishAtomicFile(file, false);
  return asked(error, file, path);
}

function asked(error: unknown, file: AtomicFile, path: string): unknown {
  const failure = error as NodeJS.ErrnoException;
  if (failure.path !== file.partial) return error;
  return cannotWrite(path, failure);
}

/** A failure to write `path` in words (`cannot write …: a read-only file system`), the cause kept. */
export function cannotWrite(path: string, error: NodeJS.ErrnoException): Error {
  const why = (error.code && WHY[error.code]) ?? error.code ?? error.message;
  return new Error(`cannot write ${path}: ${why}`, { cause: error });
}

/**
 * Where a file asked for as `path` goes, and the hidden name beside it to write it under until
 * it is complete. A symbolic link is followed (even to a file not there yet): the file it names
 * is replaced, the link stays.
 */
export function atomicFile(path: string): AtomicFile {
  const target = linkTarget(path);
  return { target, partial: join(dirname(target), `.${basename(target)}.${randomBytes(4).toString('hex')}.partial`) };
}

/**
 * Puts the finished file in place (with the mode of the file it replaces), or, when it is not
 * to be kept, removes it: either way nothing is left under the hidden name.
 */
export async function finishAtomicFile({ target, partial }: AtomicFile, keep: boolean): Promise<void> {
  if (!keep) {
    await rm(partial, { force: true });
    return;
  }
  try {
    const replaced = await stat(target).catch(() => undefined);
    if (replaced) await chmod(partial, replaced.mode & 0o7777);
    await rename(partial, target);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

function linkTarget(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      // A link to a file not there yet: the file is made where the link points.
      return lstatSync(path).isSymbolicLink() ? resolve(dirname(path), readlinkSync(path)) : path;
    } catch {
      return path;
    }
  }
}
