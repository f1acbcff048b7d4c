import type { ToolInputSchema } from '../dialog/tool-calls.js';
import { clockTime, localClock } from './get-time.js';
import { byLabel, describeEntry, nextClockTime, parseClock, spokenDuration, type TimerEntry } from './timer-book.js';
import type { TimerStore } from './timer-store.js';
import { ToolError, numberArg, stringArg, type Tool } from './tool.js';

export interface TimerToolOptions {
  store: TimerStore;
  /** Wall-clock time, epoch ms. */
  now: () => number;
  timeZone?: string | undefined;
  snoozeMs: number;
}

const MAX_MS = 7 * 24 * 3_600_000;
/** A label is said aloud when it rings: a word or two, at most this long. */
export const LABEL_MAX_CHARS = 100;

/** set_timer, list_timers, cancel_timer and snooze_timer over one store. */
export function timerTools(options: TimerToolOptions): Tool[] {
  const { store, now, timeZone } = options;
  const tool = (
    name: string,
    description: string,
    properties: ToolInputSchema['properties'],
    run: Tool['run'],
  ): Tool => ({
    name,
    description,
    inputSchema: { type: 'object', properties },
    source: 'built-in',
    // What the user should hear of besides (a damaged file set aside) follows every answer.
    run: async (input, signal) => {
      const output = await run(input, signal);
      const notices = store.takeNotices();
      return notices.length ? { ...output, text: `${output.text} Note: ${notices.join(' ')}` } : output;
    },
  });
  const name = (e: TimerEntry): string => (e.label ? `the ${e.label} ${e.kind}` : `the ${e.kind}`);
  const pick = async (label: string | undefined, id: string | undefined, what: string): Promise<TimerEntry[]> => {
    const all = await store.list();
    if (all.length === 0) throw new ToolError('no timers or alarms are set');
    if (id) return all.filter((e) => e.id === id);
    if (label) return byLabel(all, label);
    if (all.length === 1) return all;
    throw new ToolError(
      `${all.length} are set (${all.map((e) => describeEntry(e, now())).join('; ')}): say which to ${what}`,
    );
  };
  /** Said after a timer is set: nothing when this process rings it, else who will, or that none will now. */
  const whoRings = async (): Promise<string> => {
    const ringer = await store.ringer();
    if (ringer === 'this') return '';
    if (ringer !== undefined) return ` The hark running now (process ${ringer}) rings it.`;
    return ` No hark is running with these timers (${store.path ?? ''}): it rings when \`hark run\` next starts with them, at once if it is due by then.`;
  };
  return [
    tool(
      'set_timer',
      'Set a timer for a duration, or an alarm for a clock time. It rings with a sound and an announcement, even when nobody is talking to the assistant.',
      {
        duration_seconds: { type: 'number', description: 'How long the timer runs, in seconds (for a timer).' },
        at: { type: 'string', description: 'Local clock time, 24-hour HH:MM (for an alarm).' },
        label: { type: 'string', description: 'What it is for, in a word or two ("pasta"), if the user said.' },
      },
      async (input) => {
        const seconds = numberArg(input, 'duration_seconds');
        const at = stringArg(input, 'at');
        const label = stringArg(input, 'label')?.trim() || null;
        if ((seconds === undefined) === (at === undefined)) throw new ToolError('give either duration_seconds or at');
        if (label && label.length > LABEL_MAX_CHARS) {
          throw new ToolError(`label: at most ${LABEL_MAX_CHARS} characters, a word or two (it is said when it rings)`);
        }
        const t = now();
        if (seconds !== undefined) {
          const ms = Math.round(seconds * 1000);
          if (ms < 1000 || ms > MAX_MS) throw new ToolError('duration_seconds must be from 1 second to 7 days');
          const entry = await store.add({ kind: 'timer', label, dueAt: t + ms, durationMs: ms, clock: null });
          return {
            text: `Timer set for ${spokenDuration(ms)}${label ? ` (${label})` : ''}; it rings at ${clockTime(entry.dueAt, timeZone)}. Id ${entry.id}.${await whoRings()}`,
          };
        }
        const minutes = parseClock(at as string);
        if (minutes === undefined) throw new ToolError('at must be a 24-hour time, HH:MM');
        const dueAt = nextClockTime(t, localClock(t, timeZone), minutes);
        const clock = clockTime(dueAt, timeZone);
        const entry = await store.add({ kind: 'alarm', label, dueAt, durationMs: null, clock });
        return {
          text: `Alarm set for ${clock}${label ? ` (${label})` : ''}, in ${spokenDuration(dueAt - t)}. Id ${entry.id}.${await whoRings()}`,
        };
      },
    ),
    tool('list_timers', 'The timers and alarms that are set, with the time left.', {}, async () => {
      const all = await store.list();
      const t = now();
      return {
        text: all.length
          ? `${all.length} set: ${all.map((e) => describeEntry(e, t)).join('; ')}.`
          : 'No timers or alarms are set.',
      };
    }),
    tool(
      'cancel_timer',
      'Cancel a timer or alarm, by its label or id; with all: true, every one.',
      {
        label: { type: 'string', description: 'The label it was set with.' },
        id: { type: 'string', description: 'Its id, from list_timers.' },
        all: { type: 'boolean', description: 'Cancel every timer and alarm.' },
      },
      async (input) => {
        const chosen =
          input.all === true
            ? await store.list()
            : await pick(stringArg(input, 'label'), stringArg(input, 'id'), 'cancel');
        if (chosen.length === 0) throw new ToolError('none matches that label or id');
        const removed = await store.remove(chosen.map((e) => e.id));
        return { text: `Cancelled ${removed.map(name).join(' and ')}.` };
      },
    ),
    tool(
      'snooze_timer',
      'Snooze the timer or alarm that just rang (or the one named): it rings again later.',
      {
        minutes: {
          type: 'number',
          description: `How long to snooze, in minutes (default ${options.snoozeMs / 60_000}).`,
        },
        label: { type: 'string', description: 'Its label, if not the one that rang last.' },
      },
      async (input) => {
        const minutes = numberArg(input, 'minutes');
        const ms = minutes === undefined ? options.snoozeMs : Math.round(minutes * 60_000);
        if (ms < 1000 || ms > MAX_MS) throw new ToolError('minutes must be from 1 second to 7 days');
        const label = stringArg(input, 'label');
        const last = store.lastRung();
        const target = label
          ? ((last && byLabel([last], label)[0]) ?? (await pick(label, undefined, 'snooze'))[0])
          : last;
        if (!target) throw new ToolError('nothing has rung in the last hour to snooze');
        if ((await store.list()).some((e) => e.id === target.id)) await store.remove([target.id]);
        const dueAt = now() + ms;
        const clock = target.kind === 'alarm' ? clockTime(dueAt, timeZone) : null;
        const entry = await store.add({
          kind: target.kind,
          label: target.label,
          durationMs: target.durationMs,
          dueAt,
          clock,
        });
        return { text: `Snoozed ${name(entry)} for ${spokenDuration(ms)}. Id ${entry.id}.${await whoRings()}` };
      },
    ),
  ];
}
