import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';

/** A lock is waited for this long at most. */
const WAIT_MS = 5000;
/** A lock older than this is broken: it is held for one write, a few milliseconds. */
const STALE_MS = 30_000;
/** A lock with no holder written in it yet is broken after this long. */
const EMPTY_STALE_MS = 1000;

/**
 * Runs `work` holding the lock `lockPath`, a file that only one process can make (a hard link,
 * which fails where the name is taken), so processes that share a file take turns. A lock whose holder has died (kill -9 mid-write) or that is older than
 * 30 s is broken; one still held after 5 s is an error naming its holder. Locks are for brief
 * work: waiting polls every few milliseconds.
 */
export async function withLock<T>(lockPath: string, work: () => Promise<T>): Promise<T> {
  const mine = `${process.pid} ${randomBytes(6).toString('hex')}\n`;
  const deadline = Date.now() + WAIT_MS;
  // Made whole beside the lock, then linked to its name: a lock is never seen without its holder.
  const made = `${lockPath}.${randomBytes(4).toString('hex')}.new`;
  await writeFile(made, mine, { mode: 0o600 });
  try {
    for (let tries = 0; ; tries++) {
      if (await take(made, lockPath, mine)) break;
      const holder = await readHolder(lockPath);
      if (holder && (await stale(lockPath, holder))) {
        await breakLock(lockPath, holder.text);
        continue;
      }
      if (Date.now() > deadline) {
        throw new Error(`${lockPath} is held by process ${holder?.pid ?? '?'}: another hark is writing the same file`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + tries * 2) + Math.random() * 5));
    }
  } finally {
    await rm(made, { force: true });
  }
  try {
    return await work();
  } finally {
    // Only a lock still ours is removed (one broken as stale may since be another's).
    if ((await readHolder(lockPath))?.text === mine) await rm(lockPath, { force: true });
  }
}

/** Makes the lock, or false when another holds it. */
async function take(made: string, lockPath: string, mine: string): Promise<boolean> {
  try {
    await link(made, lockPath);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links (FAT): made only if absent, its holder written just after.
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP') throw error;
  }
  try {
    await writeFile(lockPath, mine, { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

async function readHolder(lockPath: string): Promise<{ text: string; pid: number } | undefined> {
  try {
    const text = await readFile(lockPath, 'utf8');
    return { text, pid: Number(text.split(' ')[0]) };
  } catch {
    return undefined;
  }
}

async function stale(lockPath: string, holder: { text: string; pid: number }): Promise<boolean> {
  const made = await stat(lockPath).catch(() => undefined);
  const age = made === undefined ? 0 : Date.now() - made.mtimeMs;
  // An empty lock is one whose holder is still being written (where there are no hard links).
  if (holder.text === '') return age > EMPTY_STALE_MS;
  return !alive(holder.pid) || age > STALE_MS;
}

/** Whether a process of that id runs (one of another user's counts: signalling it is refused, not absent). */
export function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Moves the stale lock aside and removes it. Should another process have broken it and taken the
 * lock in between, what was moved is that process's lock: it is put back.
 */
async function breakLock(lockPath: string, staleText: string): Promise<void> {
  const aside = `${lockPath}.${randomBytes(4).toString('hex')}.stale`;
  try {
    await rename(lockPath, aside);
  } catch {
    return;
  }
  const moved = await readFile(aside, 'utf8').catch(() => staleText);
  if (moved !== staleText) await link(aside, lockPath).catch(() => undefined);
  await rm(aside, { force: true });
}
