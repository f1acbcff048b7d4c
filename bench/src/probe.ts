/**
 * Where hark's time goes between two moments inside its process: when undici saw each request
 * created, its headers about to be written, and its answer's chunks come in (undici's diagnostics
 * channels), each with how long the main thread has so far been runnable but waiting for a CPU
 * (Linux schedstat's run delay, exact at the moment it is read, since the reader is running).
 * Between two moments: wall time = hark's own time (its work, and any hop it waits out) + the
 * machine's load (waiting for a CPU).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { monotonicMs } from './stats.js';

export interface Moment {
  atMs: number;
  /** The main thread's time runnable but waiting for a CPU so far (ms); NaN where schedstat cannot be read. */
  waitMs: number;
}

export interface HttpMoment extends Moment {
  channel: 'create' | 'sendHeaders' | 'bodyChunk' | 'trailers';
  path: string;
}

export interface Split {
  wallMs: number;
  /** Of the wall time, waiting for a CPU: the machine's load. */
  waitMs: number;
  /** The rest: hark's own. */
  ownMs: number;
}

export function moment(): Moment {
  const atMs = monotonicMs();
  try {
    const wait = readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[1];
    return { atMs, waitMs: Number(wait) / 1e6 };
  } catch {
    return { atMs, waitMs: NaN };
  }
}

export function split(from: Moment, to: Moment): Split {
  const wallMs = to.atMs - from.atMs;
  const waitMs = to.waitMs - from.waitMs;
  return { wallMs, waitMs, ownMs: wallMs - waitMs };
}

const CHANNELS = {
  create: 'undici:request:create',
  // Published just before the request's bytes are written (after them, the stand-in woken by
  // the write may already have taken hark's CPU on a busy machine).
  sendHeaders: 'undici:client:sendHeaders',
  bodyChunk: 'undici:request:bodyChunkReceived',
  trailers: 'undici:request:trailers',
} as const;

/** Records every HTTP request's moments (of speech, only its first chunk) until stopped. */
export function probeHttp(): { moments: HttpMoment[]; stop(): void } {
  const moments: HttpMoment[] = [];
  const chunked = new WeakSet<object>();
  const handlers = Object.entries(CHANNELS).map(([channel, name]) => {
    const handler = (message: unknown): void => {
      const request = (message as { request?: { path?: string } }).request;
      if (!request) return;
      if (channel === 'bodyChunk' && request.path === '/v1/audio/speech') {
        if (chunked.has(request)) return;
        chunked.add(request);
      }
      // A request's creation only places the hand-over; reading schedstat there would put the
      // probe's own file read inside the window it measures.
      const at = channel === 'create' ? { atMs: monotonicMs(), waitMs: NaN } : moment();
      moments.push({ ...at, channel: channel as HttpMoment['channel'], path: request.path ?? '' });
    };
    subscribe(name, handler);
    return () => unsubscribe(name, handler);
  });
  return { moments, stop: () => handlers.forEach((stop) => stop()) };
}
