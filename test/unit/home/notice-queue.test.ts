import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { NoticeQueue } from '../../../src/home/notice-queue.js';
import { JsonFile } from '../../../src/system/json-file.js';
import { createMemoryLogger } from '../../../src/system/logger.js';

const MINUTE = 60_000;

function queueAt(path: string, clock: { now: number }, logger = createMemoryLogger()) {
  return new NoticeQueue({
    file: new JsonFile(path, 'announcements', logger),
    now: () => clock.now,
    monotonic: () => 42,
    keepMs: 10 * MINUTE,
    maxWaiting: 2,
    maxChars: 40,
  });
}

describe('the announcements hark has yet to make', () => {
  it('are kept across a restart, in order, until said', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-notices-'));
    const path = join(dir, 'announcements.json');
    const clock = { now: 1_000_000 };
    const before = queueAt(path, clock);
    expect(await before.load()).toEqual([]);
    expect(await before.add('announce', ' The washing is done. ')).toBeUndefined();
    expect(await before.add('ask', 'Shall I lock the door?')).toBeUndefined();
    await before.done('n1');

    clock.now += MINUTE;
    const after = queueAt(path, clock);
    expect(await after.load()).toEqual([]);
    const first = await lastValueFrom(after.notices.pipe(take(1), toArray()));
    expect(first).toEqual([
      { id: 'n2', kind: 'ask', text: 'Shall I lock the door?', receivedAt: 1_000_000, arrivedAt: 42 },
    ]);
    // Ids go on from where they were: a sender is never told of two different n2s.
    expect(await after.add('announce', 'The post is here.')).toBeUndefined();
    expect(after.waitingNow().map((n) => n.id)).toEqual(['n2', 'n3']);
    expect(readdirSync(dir)).toEqual(['announcements.json']);
  });

  it('one kept for longer than it may wait is dropped on start, and said to be', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hark-notices-')), 'announcements.json');
    writeFileSync(
      path,
      JSON.stringify({
        nextId: 3,
        waiting: [
          { id: 'n1', kind: 'announce', text: 'Old news.', receivedAt: 0 },
          { id: 'n2', kind: 'announce', text: 'Fresh news.', receivedAt: 20 * MINUTE },
        ],
      }),
    );
    const queue = queueAt(path, { now: 25 * MINUTE });
    expect(await queue.load()).toEqual([
      { id: 'n1', kind: 'announce', text: 'Old news.', why: 'not said within 10 min: hark was not running' },
    ]);
    expect(queue.waitingNow().map((n) => n.text)).toEqual(['Fresh news.']);
    const saved = JSON.parse(readFileSync(path, 'utf8')) as { waiting: { id: string }[] };
    expect(saved.waiting.map((n) => n.id)).toEqual(['n2']);
  });

  it('refuses, saying why, what cannot be said: nothing, too long, or too many waiting', async () => {
    const queue = queueAt(join(mkdtempSync(join(tmpdir(), 'hark-notices-')), 'a.json'), { now: 0 });
    await queue.load();
    expect(await queue.add('announce', '   ')).toMatchObject({ why: 'nothing to say: the message is empty' });
    expect(await queue.add('announce', 'x'.repeat(41))).toMatchObject({ why: 'longer than 40 characters' });
    await queue.add('announce', 'One.');
    await queue.add('announce', 'Two.');
    expect(await queue.add('announce', 'Three.')).toMatchObject({ text: 'Three.', why: '2 are waiting already' });
  });

  it('a file that is no queue is said in the log, and the queue starts empty', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'hark-notices-')), 'announcements.json');
    writeFileSync(path, '{ not json');
    const logger = createMemoryLogger();
    const queue = queueAt(path, { now: 0 }, logger);
    expect(await queue.load()).toEqual([]);
    expect(queue.waitingNow()).toEqual([]);
    expect(logger.lines.find((l) => l.event === 'announcements.unreadable')).toMatchObject({ path });
  });
});
