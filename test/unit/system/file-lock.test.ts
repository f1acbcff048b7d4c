import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, withLock } from '../../../src/system/file-lock.js';

describe('withLock', () => {
  it('takes turns: work under the lock never overlaps, and nothing is left behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-lock-'));
    const lock = join(dir, 'timers.json.lock');
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
    expect(most).toBe(1);
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
