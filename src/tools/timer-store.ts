import { BehaviorSubject, Subject, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import type { Logger } from '../system/logger.js';
import { watchForChanges } from '../system/watch-file.js';
import { announcementOf, type Announcement, type TimerEntry } from './timer-book.js';
import { TimerFile, type Book } from './timer-file.js';
import { ToolError } from './tool.js';

/** A wall clock far off (a Pi before NTP has set it) is followed: the next ring is checked at least this often. */
const RECHECK_MS = 60_000;
/** Rung timers kept for "snooze": this many, for this long. */
const RUNG_KEPT = 5;
const RUNG_FOR_MS = 3_600_000;
/** Timers and alarms set at once, at most. */
export const TIMERS_MAX = 50;

export interface TimerStoreOptions {
  /** The JSON file timers live in; undefined keeps them in memory only. */
  path: string | undefined;
  /** Wall-clock time, epoch ms. */
  now: () => number;
  scheduler: SchedulerLike;
  logger: Logger;
  /** While ringing, follow the file: timers another process sets or cancels are taken up. */
  watch?: boolean;
}

/** Who rings the timers: this process, another hark (its process id), or nobody now. */
export type Ringer = 'this' | number | undefined;

/**
 * The timers and alarms that are set: kept in a file shared with other hark processes
 * (timer-file.ts), rung when due on the injected scheduler, including those that fell due while
 * hark was not running. Each change is written before the caller hears it is done, and one that
 * cannot be written is the caller's error. While it rings it follows the file, so a timer set by
 * `hark tools call` rings here.
 */
export class TimerStore {
  private timers: TimerEntry[] = [];
  private rung: { entry: TimerEntry; at: number }[] = [];
  /** Rung here: not rung again should the file still hold them (their removal could not be written). */
  private readonly rungIds = new Set<string>();
  private readonly file: TimerFile | undefined;
  private readonly memory: Book = { nextId: 1, timers: [] };
  private scheduled: Subscription | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly due = new Subject<Announcement>();
  private readonly listed = new BehaviorSubject<TimerEntry[]>([]);
  private closed = false;
  private rings = true;
  private unwatch: (() => void) | undefined;

  constructor(private readonly options: TimerStoreOptions) {
    this.file = options.path ? new TimerFile(options.path, options.logger, options.now) : undefined;
  }

  /** The timers set, soonest first: now, and after every change (set, cancelled, rung, read afresh). */
  get timersSet(): Observable<TimerEntry[]> {
    return this.listed.asObservable();
  }

  /** What rings, as it falls due. */
  get announcements(): Observable<Announcement> {
    return this.due.asObservable();
  }

  /** Where the timers are kept (undefined: in memory only). */
  get path(): string | undefined {
    return this.file?.path;
  }

  /**
   * Reads the file (an unreadable one is said in the log) and schedules the next ring; with
   * `rings` false (a command that only looks or sets) nothing rings and the file is not followed.
   */
  async load(rings = true): Promise<void> {
    this.rings = rings;
    const { logger } = this.options;
    try {
      await this.refresh();
      if (this.timers.length) logger.info('timers.loaded', { path: this.path, timers: this.timers.length });
    } catch (error) {
      logger.error('timers.unreadable', { path: this.path, error: error as Error });
    }
    if (rings && this.file && this.options.watch) {
      this.file.claimRinging();
      this.unwatch = watchForChanges(
        this.file.path,
        () => void this.refresh().catch((error: unknown) => logger.warn('timers.unreadable', { error })),
        (error) => logger.warn('timers.watch_polling', { path: this.path, error }),
      );
    }
  }

  /** The timers set, soonest first, as the file has them now. */
  async list(): Promise<TimerEntry[]> {
    await this.refresh();
    return [...this.timers].sort((a, b) => a.dueAt - b.dueAt);
  }

  /** The timer or alarm that rang last (within the hour), for "snooze". */
  lastRung(): TimerEntry | undefined {
    const now = this.options.now();
    return this.rung.filter((r) => now - r.at < RUNG_FOR_MS).at(-1)?.entry;
  }

  /** Who will ring them: this process, a running hark that follows the same file, or none now. */
  async ringer(): Promise<Ringer> {
    if (this.rings || !this.file) return 'this';
    return this.file.ringer();
  }

  /** What the user should hear of, once (a damaged file set aside). */
  takeNotices(): string[] {
    return this.file?.notices.splice(0) ?? [];
  }

  async add(entry: Omit<TimerEntry, 'id'>): Promise<TimerEntry> {
    return this.change((book) => {
      if (book.timers.length >= TIMERS_MAX) {
        throw new ToolError(`${book.timers.length} timers and alarms are set, the most hark keeps: cancel one first`);
      }
      const added = { ...entry, id: `t${book.nextId++}` };
      book.timers.push(added);
      return added;
    });
  }

  async remove(ids: readonly string[]): Promise<TimerEntry[]> {
    return this.change((book) => {
      const removed = book.timers.filter((t) => ids.includes(t.id));
      book.timers = book.timers.filter((t) => !ids.includes(t.id));
      return removed;
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.scheduled?.unsubscribe();
    this.unwatch?.();
    this.due.complete();
    this.listed.complete();
    if (this.rings) await this.file?.releaseRinging();
  }

  /** Reads the file afresh (after this process's own changes, never between them). */
  private refresh(): Promise<void> {
    return this.queued(async () => this.adopt(this.file ? await this.file.read() : this.memory));
  }

  /** Changes the book (the file's, under its lock), then rings by what it now holds. */
  private change<T>(edit: (book: Book) => T): Promise<T> {
    return this.queued(async () => {
      if (!this.file) {
        const result = edit(this.memory);
        this.adopt(this.memory);
        return result;
      }
      const { book, result } = await this.file.change(edit);
      this.adopt(book);
      return result;
    });
  }

  private queued<T>(work: () => Promise<T>): Promise<T> {
    const done = this.queue.then(work);
    this.queue = done.catch(() => undefined);
    return done;
  }

  private adopt(book: Book): void {
    this.timers = book.timers.filter((t) => !this.rungIds.has(t.id));
    this.schedule();
    if (!this.closed) this.listed.next([...this.timers].sort((a, b) => a.dueAt - b.dueAt));
  }

  /** The next check: when the soonest timer is due, and at least every minute. */
  private schedule(): void {
    this.scheduled?.unsubscribe();
    if (this.closed || !this.rings || this.timers.length === 0) return;
    const soonest = Math.min(...this.timers.map((t) => t.dueAt));
    const delay = Math.min(RECHECK_MS, Math.max(0, soonest - this.options.now()));
    this.scheduled = this.options.scheduler.schedule(() => this.ring(), delay);
  }

  private ring(): void {
    const now = this.options.now();
    const due = this.timers.filter((t) => t.dueAt <= now).sort((a, b) => a.dueAt - b.dueAt);
    if (due.length) {
      const ids = due.map((t) => t.id);
      ids.forEach((id) => this.rungIds.add(id));
      this.timers = this.timers.filter((t) => t.dueAt > now);
      this.rung = [...this.rung, ...due.map((entry) => ({ entry, at: now }))].slice(-RUNG_KEPT);
      this.remove(ids).catch((error: unknown) =>
        this.options.logger.error('timers.unsaved', { path: this.path, rung: ids, error: error as Error }),
      );
      for (const entry of due) {
        this.options.logger.info('timer.due', { id: entry.id, kind: entry.kind, label: entry.label });
        this.due.next(announcementOf(entry));
      }
    }
    this.schedule();
  }
}
