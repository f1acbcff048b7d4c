/**
 * Reading the sound server's mix (the microphone feed left, hark's voice right, one clock, 24
 * kHz): where a clip played into the feed lies, when hark's voice starts, when it pauses.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { MIX_RATE, envelope } from './sound-server.js';

/** A 10 ms window of hark's voice this loud (RMS) is voiced (its replies leave at about -17 dBFS). */
export const VOICE = 300;
const WINDOW = MIX_RATE / 100;
const COARSE = 6;

function decimate(samples: Int16Array, from: number, to: number): Float64Array {
  const out = new Float64Array(Math.max(0, Math.floor((to - from) / COARSE)));
  for (let i = 0; i < out.length; i++) {
    let sum = 0;
    for (let j = 0; j < COARSE; j++) sum += samples[from + i * COARSE + j] ?? 0;
    out[i] = sum / COARSE;
  }
  return out;
}

function correlation(signal: ArrayLike<number>, reference: ArrayLike<number>, lag: number, step = 1): number {
  let dot = 0;
  let energy = 0;
  let refEnergy = 0;
  for (let i = 0; i < reference.length; i += step) {
    const s = signal[lag + i] ?? 0;
    const r = reference[i] as number;
    dot += s * r;
    energy += s * s;
    refEnergy += r * r;
  }
  return energy && refEnergy ? dot / Math.sqrt(energy * refEnergy) : 0;
}

/**
 * Where in `mic` (a sample index) `clip` (24 kHz) begins, searched from `from` to `to`: by
 * correlation at 4 kHz, then to the sample. With hark's echo in the feed as loud as the clip
 * the peak is lower, but still where the clip is. Also how well it matched (0..1).
 */
export function locate(mic: Int16Array, clip: Int16Array, from: number, to: number): { at: number; match: number } {
  const start = Math.max(0, from);
  const signal = decimate(mic, start, Math.min(mic.length, to + clip.length));
  const reference = decimate(clip, 0, clip.length);
  let best = { lag: 0, score: -Infinity };
  for (let lag = 0; lag + reference.length <= signal.length; lag++) {
    const score = correlation(signal, reference, lag, 2);
    if (score > best.score) best = { lag, score };
  }
  let fine = { at: start + best.lag * COARSE, match: -Infinity };
  for (let at = fine.at - 2 * COARSE; at <= fine.at + 2 * COARSE; at++) {
    const match = correlation(mic, clip, at, 1);
    if (match > fine.match) fine = { at, match };
  }
  return fine;
}

/**
 * The first sample of hark's voice from `from` on: the start of the first voiced 10 ms window
 * after which hark is voiced for at least half of the next `spanMs` (so that an earcon, 35 to
 * 180 ms of sound alone, is not taken for the reply).
 */
export function voiceStarts(hark: Int16Array, from: number, spanMs = 500): number | undefined {
  const windows = envelope(hark.subarray(from));
  const span = spanMs / 10;
  for (let i = 0; i + span <= windows.length; i++) {
    if ((windows[i] as number) < VOICE) continue;
    const voiced = windows.slice(i, i + span).filter((v) => v >= VOICE).length;
    if (voiced >= span / 2) return from + i * WINDOW;
  }
  return undefined;
}

/** Whether hark's voice sounded in the `ms` before `at`. */
export function sounding(hark: Int16Array, at: number, ms = 300): boolean {
  return envelope(hark.subarray(Math.max(0, at - (ms / 1000) * MIX_RATE), at)).some((v) => v >= VOICE);
}

/**
 * Where hark's voice pauses from `from` on: the start of the first stretch of `silentMs` without
 * it (longer than the gaps between the words of a sentence, 60 ms in the stand-in's voice).
 */
export function pauseStarts(hark: Int16Array, from: number, silentMs = 200): number | undefined {
  const windows = envelope(hark.subarray(from));
  const span = silentMs / 10;
  let quietFrom: number | undefined;
  for (let i = 0; i < windows.length; i++) {
    if ((windows[i] as number) >= VOICE) quietFrom = undefined;
    else if ((quietFrom ??= i) + span <= i + 1) return from + quietFrom * WINDOW;
  }
  return undefined;
}

/** How many times hark's voice pauses (see pauseStarts) within `hark`, after it first sounds. */
export function pauses(hark: Int16Array, silentMs = 200): number {
  let count = 0;
  let from = voiceStarts(hark, 0, 100);
  while (from !== undefined) {
    const pause = pauseStarts(hark, from, silentMs);
    if (pause === undefined || pause + (silentMs / 1000) * MIX_RATE > hark.length) break;
    count++;
    from = voiceStarts(hark, pause, 100);
  }
  return count;
}

export function msOfMix(samples: number): number {
  return (samples / MIX_RATE) * 1000;
}

/** Samples recorded in the mix so far (per channel). */
export function mixLength(path: string): number {
  return Math.floor(statSync(path).size / 4);
}

/** The mix from sample `from` on (per channel): the microphone feed and hark's voice. */
export function mixFrom(path: string, from: number): { mic: Int16Array; hark: Int16Array } {
  const start = Math.max(0, from) * 4;
  const bytes = Buffer.alloc(Math.max(0, statSync(path).size - start) & ~3);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, bytes, 0, bytes.length, start);
  } finally {
    closeSync(fd);
  }
  const frames = bytes.length / 4;
  const mic = new Int16Array(frames);
  const hark = new Int16Array(frames);
  for (let i = 0; i < frames; i++) {
    mic[i] = bytes.readInt16LE(4 * i);
    hark[i] = bytes.readInt16LE(4 * i + 2);
  }
  return { mic, hark };
}
