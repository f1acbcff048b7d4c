import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Announcement } from '../../../src/tools/timer-book.js';
import { announcementOf, nextClockTime, spokenDuration } from '../../../src/tools/timer-book.js';
import { TimerStore } from '../../../src/tools/timer-store.js';
import { timerTools } from '../../../src/tools/timer-tools.js';
import type { Tool } from '../../../src/tools/tool.js';
import { silentLogger } from '../../../src/system/logger.js';
import { testScheduler } from '../../helpers/marbles.js';

const T0 = Date.UTC(2026, 4, 5, 12, 0, 0);
const dir = mkdtempSync(join(tmpdir(), 'hark-timers-'));
let files = 0;

/** A store and its tools on virtual time: wall time is T0 plus the scheduler's frames (ms). */
function setUp(path: string | undefined = join(dir, `timers-${++files}.json`), startAt = 0) {
  const scheduler = testScheduler();
  scheduler.maxFrames = Infinity;
  const now = (): number => T0 + startAt + scheduler.now();
  const store = new TimerStore({ path, now, scheduler, logger: silentLogger });
  const tools = new Map<string, Tool>(
    timerTools({ store, now, timeZone: 'UTC', snoozeMs: 300_000 }).map((t) => [t.name, t]),
  );
  const call = async (name: string, input: Record<string, unknown> = {}): Promise<string> =>
    (await (tools.get(name) as Tool).run(input, new AbortController().signal)).text;
  const rang: { at: number; announcement: Announcement }[] = [];
  store.announcements.subscribe((announcement) => rang.push({ at: scheduler.now(), announcement }));
  return { scheduler, store, call, rang, path };
}

async function settle(store: TimerStore): Promise<void> {
  // Writes are queued promises: one more turn of the event loop lets the last one land.
  await (store as unknown as { writing: Promise<void> }).writing;
}

describe('timers and alarms', () => {
  it('a 3-second timer rings at 3 s of virtual time, announced by its label', async () => {
    const { scheduler, store, call, rang } = setUp();
    await store.load();
    expect(await call('set_timer', { duration_seconds: 3, label: 'pasta' })).toMatch(
      /^Timer set for 3 seconds \(pasta\); it rings at 12:00\./,
    );
    scheduler.flush();
    expect(rang).toEqual([{ at: 3000, announcement: { id: 't1', text: 'Your pasta timer is done.' } }]);
    expect(store.list()).toEqual([]);
  });

  it('several run at once and each rings at its time', async () => {
    const { scheduler, store, call, rang } = setUp();
    await store.load();
    await call('set_timer', { duration_seconds: 120 });
    await call('set_timer', { duration_seconds: 30, label: 'eggs' });
    expect(await call('list_timers')).toBe(
      '2 set: eggs timer, 30 seconds left (id t2); timer, 2 minutes left (id t1).',
    );
    scheduler.flush();
    expect(rang.map((r) => [r.at, r.announcement.text])).toEqual([
      [30_000, 'Your eggs timer is done.'],
      [120_000, 'Your 2 minutes timer is done.'],
    ]);
  });

  it('survive a restart: the file keeps them, and one that fell due while hark was off rings at once', async () => {
    const first = setUp();
    await first.store.load();
    await first.call('set_timer', { duration_seconds: 3, label: 'tea' });
    await first.call('set_timer', { at: '18:30', label: 'dinner' });
    await settle(first.store);
    first.store.close();
    expect((JSON.parse(readFileSync(first.path, 'utf8')) as { timers: unknown[] }).timers).toHaveLength(2);
    // Started again an hour later.
    const second = setUp(first.path, 3_600_000);
    await second.store.load();
    expect(second.store.list().map((e) => e.label)).toEqual(['tea', 'dinner']);
    second.scheduler.flush();
    expect(second.rang[0]).toEqual({ at: 0, announcement: { id: 't1', text: 'Your tea timer is done.' } });
    expect(second.rang[1]?.announcement.text).toBe('It is 18:30. Your dinner alarm.');
  });

  it('cancels by label, and asks which when several are set', async () => {
    const { store, call } = setUp();
    await store.load();
    await call('set_timer', { duration_seconds: 60, label: 'pasta' });
    await call('set_timer', { duration_seconds: 90, label: 'sauce' });
    await expect(call('cancel_timer')).rejects.toThrow(/2 are set .*say which to cancel/);
    expect(await call('cancel_timer', { label: 'Pasta timer' })).toBe('Cancelled the pasta timer.');
    expect(store.list().map((e) => e.label)).toEqual(['sauce']);
    expect(await call('cancel_timer', { all: true })).toBe('Cancelled the sauce timer.');
  });

  it('snoozes the one that rang last', async () => {
    const { scheduler, store, call, rang } = setUp();
    await store.load();
    await call('set_timer', { duration_seconds: 5, label: 'bread' });
    scheduler.flush();
    expect(await call('snooze_timer', { minutes: 2 })).toBe('Snoozed the bread timer for 2 minutes. Id t2.');
    scheduler.flush();
    expect(rang.map((r) => r.at)).toEqual([5000, 125_000]);
  });

  it('refuses what makes no sense, in words the model can pass on', async () => {
    const { store, call } = setUp(undefined);
    await store.load();
    await expect(call('set_timer', {})).rejects.toThrow('give either duration_seconds or at');
    await expect(call('set_timer', { at: '25:00' })).rejects.toThrow('HH:MM');
    await expect(call('snooze_timer')).rejects.toThrow('nothing has rung');
  });

  it('reads a damaged file as no timers, and says so', async () => {
    const path = join(dir, 'damaged.json');
    writeFileSync(path, '{"timers": [');
    const { store } = setUp(path);
    await store.load();
    expect(store.list()).toEqual([]);
  });

  it('says durations and alarm times as they are spoken', () => {
    expect(spokenDuration(90 * 60_000)).toBe('1 hour 30 minutes');
    expect(spokenDuration(61_000)).toBe('1 minute 1 second');
    expect(
      announcementOf({ id: 'a', kind: 'timer', label: null, dueAt: 0, durationMs: 600_000, clock: null }).text,
    ).toBe('Your 10 minutes timer is done.');
    // 23:59:30 local → 00:10 is 10 minutes and 30 seconds ahead.
    expect(nextClockTime(0, { minutes: 23 * 60 + 59, seconds: 30 }, 10)).toBe(10 * 60_000 + 30_000);
  });
});
