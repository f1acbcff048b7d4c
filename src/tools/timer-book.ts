/**
 * Timers and alarms as data: what is set, what is due, how each is said. Pure; the store
 * (timer-store.ts) keeps it on disk and rings what is due.
 */

export interface TimerEntry {
  id: string;
  kind: 'timer' | 'alarm';
  label: string | null;
  /** When it rings (epoch ms). */
  dueAt: number;
  /** A timer's length, for saying "your 10 minute timer"; null for an alarm. */
  durationMs: number | null;
  /** The clock time an alarm was set for ("07:00"). */
  clock: string | null;
}

/** Something that must be said unprompted: a timer or an alarm fallen due, as it is announced. */
export interface Announcement {
  id: string;
  text: string;
}

export function announcementOf(entry: TimerEntry): Announcement {
  const what = entry.label ?? (entry.durationMs !== null ? spokenDuration(entry.durationMs) : null);
  const text =
    entry.kind === 'alarm'
      ? `It is ${entry.clock ?? 'time'}. ${entry.label ? `Your ${entry.label} alarm.` : 'Your alarm.'}`
      : `Your ${what ? `${what} ` : ''}timer is done.`;
  return { id: entry.id, text };
}

/** "10 minutes", "1 hour 30 minutes", "45 seconds". */
export function spokenDuration(ms: number): string {
  let seconds = Math.max(0, Math.round(ms / 1000));
  const hours = Math.floor(seconds / 3600);
  seconds -= hours * 3600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  const unit = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
  const parts = [
    ...(hours ? [unit(hours, 'hour')] : []),
    ...(minutes ? [unit(minutes, 'minute')] : []),
    ...(seconds && hours === 0 ? [unit(seconds, 'second')] : []),
  ];
  return parts.length ? parts.join(' ') : unit(0, 'second');
}

/** The entry as a line of a list: "pasta timer, 8 minutes 12 seconds left (id t3)". */
export function describeEntry(entry: TimerEntry, now: number): string {
  const name = entry.label ? `${entry.label} ${entry.kind}` : entry.kind;
  const left = spokenDuration(entry.dueAt - now);
  const when = entry.kind === 'alarm' ? ` at ${entry.clock ?? '?'}, in ${left}` : `, ${left} left`;
  return `${name}${when} (id ${entry.id})`;
}

/** "HH:MM" (24-hour) → minutes after midnight, or undefined. */
export function parseClock(text: string): number | undefined {
  const match = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!match) return undefined;
  const [hours, minutes] = [Number(match[1]), Number(match[2])];
  return hours < 24 && minutes < 60 ? hours * 60 + minutes : undefined;
}

/**
 * When an alarm set for `targetMinutes` after local midnight next rings, given the local clock
 * now: later today, else tomorrow (a day is taken as 24 hours).
 */
export function nextClockTime(now: number, local: { minutes: number; seconds: number }, targetMinutes: number): number {
  let minutesAhead = targetMinutes - local.minutes;
  if (minutesAhead <= 0) minutesAhead += 24 * 60;
  return now + minutesAhead * 60_000 - local.seconds * 1000 - (now % 1000);
}

/** Entries that match a label, loosely: case, a trailing "timer" or "alarm", and spaces do not matter. */
export function byLabel(entries: readonly TimerEntry[], label: string): TimerEntry[] {
  const norm = (s: string): string =>
    s
      .toLowerCase()
      .replace(/\b(timer|alarm)\b/g, '')
      .replace(/[^\p{L}\p{N}]+/gu, '');
  const wanted = norm(label);
  return entries.filter((e) => (e.label ? norm(e.label) === wanted : false) || e.id === label);
}
