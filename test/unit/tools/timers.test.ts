import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Announcement } from '../../../src/tools/timer-book.js';
import { announcementOf, nextClockTime, spokenDuration } from '../../../src/tools/timer-book.js';
import { TimerStore } from '../../../src/tools/timer-store.js';
import { timerTools } from '../../../src/tools/timer-tools.js';
import type { Tool } from '../../../src/tools/tool.js';
import { silentLogger, type Logger } from '../../../src/system/logger.js';
import { watchedLogger } from '../../helpers/logger.js';
import { testScheduler } from '../../helpers/marbles.js';

const T0 = Date.UTC(2026, 4, 5, 12, 0, 0);
const dir = mkdtempSync(join(tmpdir(), 'hark-timers-'));
let files = 0;

/** A store and its tools on virtual time: wall time is T0 plus the scheduler's frames (ms). */
function setUp(
  path: string | undefined = join(dir, `timers-${++files}.json`),
  startAt = 0,
  logger: Logger = silentLogger,
) {
  const scheduler = testScheduler();
  scheduler.maxFrames = Infinity;
  const now = (): number => T0 + startAt + scheduler.now();
  const store = new TimerStore({ path, now, scheduler, logger });
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
  // Changes are queued: the last one has landed once a look at the list (queued after it) is done.
  await store.list();
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
    expect(await store.list()).toEqual([]);
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
    await first.store.close();
    expect((JSON.parse(readFileSync(first.path, 'utf8')) as { timers: unknown[] }).timers).toHaveLength(2);
    // Started again an hour later.
    const second = setUp(first.path, 3_600_000);
    await second.store.load();
    expect((await second.store.list()).map((e) => e.label)).toEqual(['tea', 'dinner']);
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
    expect((await store.list()).map((e) => e.label)).toEqual(['sauce']);
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

  it('a damaged file is kept aside, said at error level and in the next answer, and what can be read of it stays', async () => {
    const folder = mkdtempSync(join(dir, 'damaged-'));
    const path = join(folder, 'timers.json');
    // Cut off in the middle of the second timer (a power cut with no sync).
    const damaged =
      '{\n  "version": 1,\n  "nextId": 4,\n  "timers": [\n    {\n      "id": "t1",\n      "kind": "alarm",\n      "label": "work",\n      "dueAt": 1778000000000,\n      "durationMs": null,\n      "clock": "06:45"\n    },\n    {\n      "id": "t3",\n      "kind": "tim';
    writeFileSync(path, damaged);
    const logger = watchedLogger();
    const { store, call } = setUp(path, 0, logger);
    await store.load();
    expect((await store.list()).map((e) => e.label)).toEqual(['work']);
    const aside = readdirSync(folder).filter((name) => name.startsWith('timers.json.damaged-'));
    expect(aside).toEqual(['timers.json.damaged-2026-05-05T12-00-00-000Z']);
    expect(readFileSync(join(folder, aside[0] as string), 'utf8')).toBe(damaged);
    expect(logger.lines.find((l) => l.event === 'timers.damaged')).toMatchObject({
      level: 'error',
      readable: 1,
      keptAs: join(folder, aside[0] as string),
    });
    // The next answer says so, once; and a new timer takes no id the damaged file had given.
    expect(await call('set_timer', { duration_seconds: 60 })).toMatch(
      /Id t4\. Note: timers\.json was damaged and could not be read whole: it is kept as timers\.json\.damaged-2026-05-05T12-00-00-000Z, and the 1 timer that could be read was kept\.$/,
    );
    expect(await call('list_timers')).not.toMatch(/Note/);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ nextId: 5, timers: [{ id: 't1' }, { id: 't4' }] });
  });

  it('an empty file (the power cut came before the write) is damaged too, and kept', async () => {
    const folder = mkdtempSync(join(dir, 'empty-'));
    writeFileSync(join(folder, 'timers.json'), '');
    const { store, call } = setUp(join(folder, 'timers.json'));
    await store.load();
    expect(await call('list_timers')).toMatch(/^No timers or alarms are set\. Note: timers\.json was damaged/);
    expect(readdirSync(folder).sort()).toEqual(['timers.json', 'timers.json.damaged-2026-05-05T12-00-00-000Z']);
  });

  it('a timer that cannot be saved is not set: the tool fails saying why, and nothing is listed', async () => {
    const blocker = join(dir, 'a-file-not-a-folder');
    writeFileSync(blocker, '');
    const { store, call } = setUp(join(blocker, 'hark', 'timers.json'));
    await store.load();
    await expect(call('set_timer', { at: '06:45' })).rejects.toThrow(
      `cannot write ${join(blocker, 'hark', 'timers.json')}: files cannot be made there`,
    );
    await expect(call('list_timers')).resolves.toBe('No timers or alarms are set.');
  });

  it('keeps a label short and the number of timers bounded, saying so', async () => {
    const path = join(dir, `timers-${++files}.json`);
    const timers = Array.from({ length: 50 }, (_, n) => ({
      id: `t${n + 1}`,
      kind: 'timer',
      label: null,
      dueAt: T0 + 60_000,
      durationMs: 60_000,
      clock: null,
    }));
    writeFileSync(path, JSON.stringify({ version: 1, nextId: 51, timers }));
    const { store, call } = setUp(path);
    await store.load();
    await expect(call('set_timer', { duration_seconds: 60, label: 'x'.repeat(101) })).rejects.toThrow(
      'label: at most 100 characters',
    );
    await expect(call('set_timer', { duration_seconds: 60 })).rejects.toThrow(
      '50 timers and alarms are set, the most hark keeps: cancel one first',
    );
    expect(await store.list()).toHaveLength(50);
    await call('cancel_timer', { id: 't7' });
    expect(await call('set_timer', { duration_seconds: 60, label: 'x'.repeat(100) })).toMatch(/Id t51\./);
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
