import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as fs from 'node:fs/promises';
import { describe, expect, it, vi } from 'vitest';
import { alive, withLock } from '../../../src/system/file-lock.js';

/**
 * Set: the file system has no hard links (as FAT): link() fails as it would there, and a file
 * made only if absent is seen empty for a moment before what is written in it.
 */
let noHardLinks = false;
vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof fs>();
  const refused = () => Promise.reject(Object.assign(new Error('EPERM: operation not permitted'), { code: 'EPERM' }));
  return {
    ...real,
    link: (from: string, to: string) => (noHardLinks ? refused() : real.link(from, to)),
    writeFile: async (path: string, text: string, options: { flag?: string; mode?: number }) => {
      if (!noHardLinks || options.flag !== 'wx') return real.writeFile(path, text, options);
      const file = await real.open(path, 'wx', options.mode);
      // The moment a slow disk takes between making the file and writing it.
      await new Promise((resolve) => setTimeout(resolve, 5));
      await file.writeFile(text);
      await file.close();
    },
  };
});

async function overlapOfEight(lock: string): Promise<number> {
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 8 }, () =>
      withLock(lock, async () => {
        most = Math.max(most, ++inside);
        await new Promise((resolve) => setImmediate(resolve));
        inside--;
      }),
    ),
  );
  return most;
}

describe('withLock', () => {
  it('takes turns: work under the lock never overlaps, and nothing is left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-lock-'));
    expect(await overlapOfEight(join(dir, 'timers.json.lock'))).toBe(1);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('takes turns on a file system without hard links too, where a lock is made before its holder is written in it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-lock-'));
    noHardLinks = true;
    try {
      expect(await overlapOfEight(join(dir, 'timers.json.lock'))).toBe(1);
    } finally {
      noHardLinks = false;
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('breaks a lock whose holder has died (killed mid-write) at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-lock-'));
    const lock = join(dir, 'timers.json.lock');
    // A process that has ended: its id is free.
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    }).stdout;
    expect(alive(Number(gone))).toBe(false);
    writeFileSync(lock, `${gone} 0123456789ab\n`);
    expect(await withLock(lock, () => Promise.resolve('written'))).toBe('written');
    expect(existsSync(lock)).toBe(false);
  });
});
