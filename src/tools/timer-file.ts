import { mkdirSync } from 'node:fs';
import { copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import { writeDurably } from '../system/durable-file.js';
import { alive, withLock } from '../system/file-lock.js';
import type { Logger } from '../system/logger.js';
import { cannotWrite } from '../system/atomic-file.js';
import type { TimerEntry } from './timer-book.js';

/** What the file holds: the timers set, and the number the next one's id takes. */
export interface Book {
  nextId: number;
  timers: TimerEntry[];
}

/**
 * timers.json, shared by every hark process with the same state directory (the daemon, `hark
 * tools call`): each change takes a lock, reads the file afresh, changes it and writes it whole
 * and durably, so changes made side by side all last and ids never clash. A file that cannot be
 * read whole is set aside as `timers.json.damaged-<time>`, said at error level and in the next
 * tool answer (`notices`), and what could be read of it is kept.
 */
export class TimerFile {
  /** What the user should hear of (a damaged file set aside), until a tool answer has said it. */
  readonly notices: string[] = [];
  private claiming: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly logger: Logger,
    private readonly now: () => number,
  ) {}

  /** The book as the file has it now (repaired first if it is damaged). */
  async read(): Promise<Book> {
    const read = readBook(await this.text());
    if (!read.damaged) return read.book;
    try {
      return (await this.change(() => undefined)).book;
    } catch (error) {
      // Not repaired (a read-only disk): what could be read is used, and the file is left as it is.
      this.logger.error('timers.unrepaired', { path: this.path, error: error as Error });
      return read.book;
    }
  }

  /** Changes the book under the lock and writes it; `edit` may throw to write nothing. */
  async change<T>(edit: (book: Book) => T): Promise<{ book: Book; result: T }> {
    const dir = dirname(this.path);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      return await withLock(`${this.path}.lock`, async () => {
        const book = await this.readRepairing();
        const result = edit(book);
        await writeDurably(this.path, `${JSON.stringify({ version: 1, ...book }, null, 2)}\n`);
        return { book, result };
      });
    } catch (error) {
      const failure = error as NodeJS.ErrnoException;
      throw failure.code && failure.syscall ? cannotWrite(this.path, failure) : error;
    }
  }

  /**
   * Marks this process as the one that rings these timers, for `tools call` to say so; never
   * fails. The folder is made at once (it is watched next); the marker is written meanwhile,
   * so that start-up does not wait for it (a file run's input is already flowing).
   */
  claimRinging(): void {
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    } catch {
      return;
    }
    this.claiming = writeFile(this.ringerPath, `${process.pid}\n`, { mode: 0o600 }).catch(() => undefined);
  }

  async releaseRinging(): Promise<void> {
    // A marker still being written is removed once it is there.
    await this.claiming;
    if ((await this.ringer()) === process.pid) await rm(this.ringerPath, { force: true });
  }

  /** The process that rings these timers (a running daemon), if one does. */
  async ringer(): Promise<number | undefined> {
    const pid = Number((await readFile(this.ringerPath, 'utf8').catch(() => '')).trim());
    if (!alive(pid)) return undefined;
    // A hark that died without a word left its id, which another program may have since.
    const command = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
    return command === undefined || command.includes('hark') ? pid : undefined;
  }

  private get ringerPath(): string {
    return `${this.path}.ringer`;
  }

  private async text(): Promise<string | undefined> {
    try {
      return await readFile(this.path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      throw error;
    }
  }

  /** Under the lock: the book, a damaged file set aside first. */
  private async readRepairing(): Promise<Book> {
    const text = await this.text();
    const { book, damaged } = readBook(text);
    if (!damaged) return book;
    const aside = `${this.path}.damaged-${new Date(this.now()).toISOString().replace(/[:.]/g, '-')}`;
    // A copy: should the repaired file not be written, the damaged one is still there too.
    await copyFile(this.path, aside);
    const kept = book.timers.length;
    this.logger.error('timers.damaged', { path: this.path, keptAs: aside, readable: kept });
    this.notices.push(
      `${basename(this.path)} was damaged and could not be read whole: it is kept as ${basename(aside)}, and ${kept === 1 ? 'the 1 timer' : `the ${kept} timers`} that could be read ${kept === 1 ? 'was' : 'were'} kept.`,
    );
    return book;
  }
}

/** The book in `text` (none: an empty book), and whether the text was damaged; what can be read of a damaged one is kept. */
export function readBook(text: string | undefined): { book: Book; damaged: boolean } {
  if (text === undefined) return { book: { nextId: 1, timers: [] }, damaged: false };
  let whole: { timers?: unknown; nextId?: unknown } | undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) whole = parsed;
  } catch {
    whole = undefined;
  }
  const listed = Array.isArray(whole?.timers) ? (whole.timers as unknown[]) : undefined;
  // Damaged: each flat object that is a timer is taken, wherever it is.
  const found = listed ?? [...text.matchAll(/\{[^{}]*\}/g)].map((m) => parseOr(m[0]));
  const timers = found.filter(isEntry).map((t): TimerEntry => ({
    id: t.id,
    kind: t.kind,
    label: t.label ?? null,
    dueAt: t.dueAt,
    durationMs: typeof t.durationMs === 'number' ? t.durationMs : null,
    clock: typeof t.clock === 'string' ? t.clock : null,
  }));
  const damaged = listed === undefined || timers.length !== listed.length;
  const written =
    typeof whole?.nextId === 'number' ? whole.nextId : Number(/"nextId"\s*:\s*(\d+)/.exec(text)?.[1] ?? 1);
  const highest = Math.max(0, ...timers.map((t) => Number(/^t(\d+)$/.exec(t.id)?.[1] ?? 0)));
  return { book: { nextId: Math.max(written, highest + 1), timers }, damaged };
}

function parseOr(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isEntry(value: unknown): value is TimerEntry {
  const entry = value as Partial<TimerEntry> | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.id === 'string' &&
    (entry.kind === 'timer' || entry.kind === 'alarm') &&
    typeof entry.dueAt === 'number' &&
    (typeof entry.label === 'string' || entry.label === null || entry.label === undefined)
  );
}
