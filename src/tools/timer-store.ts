import { BehaviorSubject, Subject, type Observable, type SchedulerLike, type Subscription } from 'rxjs';
import { JsonFile } from '../system/json-file.js';
import type { Logger } from '../system/logger.js';
import { announcementOf, type Announcement, type TimerEntry } from './timer-book.js';

/** A wall clock far off (a Pi before NTP has set it) is followed: the next ring is checked at least this often. */
const RECHECK_MS = 60_000;
/** Rung timers kept for "snooze": this many, for this long. */
const RUNG_KEPT = 5;
const RUNG_FOR_MS = 3_600_000;

export interface TimerStoreOptions {
  /** The JSON file timers live in; undefined keeps them in memory only. */
  path: string | undefined;
  /** Wall-clock time, epoch ms. */
  now: () => number;
  scheduler: SchedulerLike;
  logger: Logger;
}

/**
 * The timers and alarms that are set: kept in a file (written whole, so a crash never leaves
 * half of one), rung when due on the injected scheduler, including those that fell due while
 * hark was not running. Each change is written before the caller hears it is done.
 */
export class TimerStore {
  private timers: TimerEntry[] = [];
  private rung: { entry: TimerEntry; at: number }[] = [];
  private nextId = 1;
  private scheduled: Subscription | undefined;
  private readonly file: JsonFile | undefined;
  private readonly due = new Subject<Announcement>();
  private readonly listed = new BehaviorSubject<TimerEntry[]>([]);
  private closed = false;
  private rings = true;

  constructor(private readonly options: TimerStoreOptions) {
    this.file = options.path === undefined ? undefined : new JsonFile(options.path, 'timers', options.logger);
  }

  /** The timers set, soonest first: now, and after every change (set, cancelled, rung, read at start). */
  get timersSet(): Observable<TimerEntry[]> {
    return this.listed.asObservable();
  }

  /** What rings, as it falls due. */
  get announcements(): Observable<Announcement> {
    return this.due.asObservable();
  }

  /**
   * Reads the file (a missing one is no timers; an unreadable one is said in the log) and
   * schedules the next ring; with `rings` false (a command that only looks or sets) nothing rings.
   */
  async load(rings = true): Promise<void> {
    this.rings = rings;
    const saved = (await this.file?.read()) as { timers?: TimerEntry[]; nextId?: number } | undefined;
    if (saved !== undefined) {
      try {
        this.timers = (saved.timers ?? []).filter(isEntry);
        this.nextId = typeof saved.nextId === 'number' ? saved.nextId : this.timers.length + 1;
        if (this.timers.length)
          this.options.logger.info('timers.loaded', { path: this.options.path, timers: this.timers.length });
      } catch (error) {
        this.file?.unreadable(error);
      }
    }
    this.schedule();
  }

  list(): TimerEntry[] {
    return [...this.timers].sort((a, b) => a.dueAt - b.dueAt);
  }

  /** The timer or alarm that rang last (within the hour), for "snooze". */
  lastRung(): TimerEntry | undefined {
    const now = this.options.now();
    return this.rung.filter((r) => now - r.at < RUNG_FOR_MS).at(-1)?.entry;
  }

  async add(entry: Omit<TimerEntry, 'id'>): Promise<TimerEntry> {
    const added = { ...entry, id: `t${this.nextId++}` };
    this.timers.push(added);
    await this.changed();
    return added;
  }

  async remove(ids: readonly string[]): Promise<TimerEntry[]> {
    const removed = this.timers.filter((t) => ids.includes(t.id));
    this.timers = this.timers.filter((t) => !ids.includes(t.id));
    await this.changed();
    return removed;
  }

  close(): void {
    this.closed = true;
    this.scheduled?.unsubscribe();
    this.due.complete();
    this.listed.complete();
  }

  private async changed(): Promise<void> {
    this.schedule();
    await this.save();
  }

  /** The next check: when the soonest timer is due, and at least every minute. */
  private schedule(): void {
    if (!this.closed) this.listed.next(this.list());
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
      this.timers = this.timers.filter((t) => t.dueAt > now);
      this.rung = [...this.rung, ...due.map((entry) => ({ entry, at: now }))].slice(-RUNG_KEPT);
      void this.save();
      for (const entry of due) {
        this.options.logger.info('timer.due', { id: entry.id, kind: entry.kind, label: entry.label });
        this.due.next(announcementOf(entry));
      }
    }
    this.schedule();
  }

  private save(): Promise<void> {
    return this.file?.save({ version: 1, nextId: this.nextId, timers: this.timers }) ?? Promise.resolve();
  }
}

function isEntry(value: unknown): value is TimerEntry {
  const entry = value as Partial<TimerEntry> | null;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    typeof entry.id === 'string' &&
    (entry.kind === 'timer' || entry.kind === 'alarm') &&
    typeof entry.dueAt === 'number'
  );
}
