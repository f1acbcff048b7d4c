import type { Tool } from './tool.js';

/** `get_time`: the local date, time and time zone, at `now()` (epoch ms). */
export function getTimeTool(now: () => number, timeZone?: string): Tool {
  return {
    name: 'get_time',
    description:
      'The current local date, time and time zone. Use it for any question about the time, the date or the day.',
    inputSchema: { type: 'object', properties: {} },
    source: 'built-in',
    run: () => Promise.resolve({ text: describeTime(now(), timeZone) }),
  };
}

/** "Tuesday 5 May 2026, 14:03 in Europe/Berlin (UTC+02:00)". */
export function describeTime(at: number, timeZone?: string): string {
  const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  const date = new Intl.DateTimeFormat('en-GB', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
    timeZone: zone,
  }).format(at);
  return `${date}, ${clockTime(at, zone)} in ${zone} (${utcOffset(at, zone)})`;
}

/** "14:03" in the zone. */
export function clockTime(at: number, timeZone?: string): string {
  return new Intl.DateTimeFormat('en-GB', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone }).format(
    at,
  );
}

function utcOffset(at: number, timeZone: string): string {
  const name = new Intl.DateTimeFormat('en-GB', { timeZone, timeZoneName: 'longOffset' })
    .formatToParts(at)
    .find((p) => p.type === 'timeZoneName')?.value;
  return name === 'GMT' || !name ? 'UTC+00:00' : name.replace('GMT', 'UTC');
}

/** Minutes since local midnight, and seconds into the minute, at `at` in the zone. */
export function localClock(at: number, timeZone?: string): { minutes: number; seconds: number } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
    timeZone,
  }).formatToParts(at);
  const part = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return { minutes: part('hour') * 60 + part('minute'), seconds: part('second') };
}
