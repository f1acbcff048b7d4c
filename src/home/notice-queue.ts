import { Subject, concat, defer, from, type Observable } from 'rxjs';
import type { JsonFile } from '../system/json-file.js';

/** An announcement or a question the home asked hark to say, as it waits its turn. */
export interface QueuedNotice {
  id: string;
  kind: 'announce' | 'ask';
  text: string;
  /** When it came (epoch ms): one kept across a restart for too long is dropped. */
  receivedAt: number;
  /** When it came (monotonic ms, this run's clock): what its latency is measured from. */
  arrivedAt: number;
}

/** Why a notice was refused or dropped unsaid: said back to whoever sent it. */
export interface Unsaid {
  id: string;
  kind: QueuedNotice['kind'];
  text: string;
  why: string;
}

export interface NoticeQueueOptions {
  /** Where the queue is kept; undefined keeps it in memory only. */
  file: JsonFile | undefined;
  /** Wall-clock time (epoch ms), and the monotonic time latencies are measured on. */
  now: () => number;
  monotonic: () => number;
  /** One kept across a restart for longer than this is dropped. */
  keepMs: number;
  /** At most this many wait; more are refused. */
  maxWaiting: number;
  /** The longest text that can be said as one. */
  maxChars: number;
}

/**
 * What the home asked hark to say and hark has not yet said, in order, kept in a file (written
 * whole) so that a restart loses none: each is written before the sender is told it arrived,
 * and taken off once said, or once the user stopped it. Those found on start that have waited
 * too long are dropped, and said to be.
 */
export class NoticeQueue {
  private waiting: QueuedNotice[] = [];
  private nextId = 1;
  private readonly arrivals = new Subject<QueuedNotice>();

  constructor(private readonly options: NoticeQueueOptions) {}

  /** Those waiting, then each as it arrives: the voice loop's notices (read by one loop). */
  get notices(): Observable<QueuedNotice> {
    return defer(() => concat(from([...this.waiting]), this.arrivals));
  }

  /** Reads those kept from before; returns those dropped for having waited too long. */
  async load(): Promise<Unsaid[]> {
    const saved = (await this.options.file?.read()) as { nextId?: unknown; waiting?: unknown } | undefined;
    const kept = Array.isArray(saved?.waiting) ? saved.waiting.filter(isQueued) : [];
    if (typeof saved?.nextId === 'number') this.nextId = saved.nextId;
    const now = this.options.now();
    const fresh = kept.filter((n) => now - n.receivedAt <= this.options.keepMs);
    const arrivedAt = this.options.monotonic();
    this.waiting = fresh.map((n) => ({ ...n, arrivedAt }));
    const stale = kept.filter((n) => !fresh.includes(n));
    if (stale.length) await this.save();
    const minutes = Math.round(this.options.keepMs / 60_000);
    return stale.map((n) => ({ ...unsaidOf(n), why: `not said within ${minutes} min: hark was not running` }));
  }

  /** Queues one and writes the queue: settles once it is kept (refused: what to tell the sender). */
  async add(kind: QueuedNotice['kind'], text: string): Promise<Unsaid | undefined> {
    const id = `n${this.nextId++}`;
    const words = text.trim();
    const refused = (why: string): Unsaid => ({ id, kind, text: words, why });
    if (!words) return refused('nothing to say: the message is empty');
    if (words.length > this.options.maxChars) return refused(`longer than ${this.options.maxChars} characters`);
    if (this.waiting.length >= this.options.maxWaiting) return refused(`${this.waiting.length} are waiting already`);
    const notice: QueuedNotice = {
      id,
      kind,
      text: words,
      receivedAt: this.options.now(),
      arrivedAt: this.options.monotonic(),
    };
    this.waiting.push(notice);
    // The loop may start saying it while it is written.
    this.arrivals.next(notice);
    await this.save();
    return undefined;
  }

  /** Said, or stopped by the user, or failed: no longer waiting. */
  async done(id: string): Promise<void> {
    const before = this.waiting.length;
    this.waiting = this.waiting.filter((n) => n.id !== id);
    if (this.waiting.length !== before) await this.save();
  }

  waitingNow(): readonly QueuedNotice[] {
    return this.waiting;
  }

  private save(): Promise<void> {
    const waiting = this.waiting.map(({ id, kind, text, receivedAt }) => ({ id, kind, text, receivedAt }));
    return this.options.file?.save({ version: 1, nextId: this.nextId, waiting }) ?? Promise.resolve();
  }
}

function unsaidOf(notice: Pick<QueuedNotice, 'id' | 'kind' | 'text'>): Omit<Unsaid, 'why'> {
  return { id: notice.id, kind: notice.kind, text: notice.text };
}

function isQueued(value: unknown): value is QueuedNotice {
  const n = value as Partial<QueuedNotice> | null;
  return (
    typeof n === 'object' &&
    n !== null &&
    typeof n.id === 'string' &&
    (n.kind === 'announce' || n.kind === 'ask') &&
    typeof n.text === 'string' &&
    typeof n.receivedAt === 'number'
  );
}
