/**
 * What a power cut may leave: timers.json is synced to the disk before it is renamed into place,
 * and its folder after, so the file is the old one or the new one, never empty. The file system
 * calls are recorded as they are made.
 */
import { mkdtempSync } from 'node:fs';
import type * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { queueScheduler } from 'rxjs';
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../../src/system/logger.js';
import { TimerStore } from '../../../src/tools/timer-store.js';

const calls: string[] = [];

vi.mock('node:fs/promises', async (original) => {
  const real = await original<typeof fs>();
  const name = (path: unknown): string =>
    basename(String(path)).replace(/\.[0-9a-f]{8}\.partial$/, '.<hidden>.partial');
  return {
    ...real,
    open: async (...args: Parameters<typeof real.open>) => {
      const handle = await real.open(...args);
      const sync = handle.sync.bind(handle);
      return Object.assign(handle, {
        sync: async () => {
          calls.push(`sync ${name(args[0])}`);
          await sync();
        },
      });
    },
    rename: async (from: string, to: string) => {
      calls.push(`rename ${name(from)} -> ${name(to)}`);
      await real.rename(from, to);
    },
  };
});

describe('timers.json on the disk', () => {
  it('is synced before it is renamed into place, and its folder after', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'hark-durable-'));
    const store = new TimerStore({
      path: join(folder, 'timers.json'),
      now: () => 0,
      scheduler: queueScheduler,
      logger: silentLogger,
    });
    await store.load(false);
    await store.add({ kind: 'timer', label: 'tea', dueAt: 60_000, durationMs: 60_000, clock: null });
    expect(calls).toEqual([
      'sync .timers.json.<hidden>.partial',
      'rename .timers.json.<hidden>.partial -> timers.json',
      `sync ${basename(folder)}`,
    ]);
  });
});
