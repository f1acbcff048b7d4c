/**
 * The small-board bench's audio, each piece with where its words are, labelled when it was made
 * (never by hark): the room (pink noise at -60 dBFS), the wake word alone (from the committed
 * recordings and espeak-ng voices), the wake word before a hand-labelled question.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pcmToWav } from '../../dist/audio/wav-header.js';
import { resample } from '../../dist/audio/pcm.js';
import { FIXTURES, fixture } from './fixtures.js';
import { labelled, type Span } from './labelled.js';
import { concat, firstPause, noise, quiet, RATE, speak } from './wake-audio.js';

/** The quiet room hark listens in: pink noise at this level (RMS). */
export const ROOM_DBFS = -60;
const SAMPLES_PER_MS = RATE / 1000;

/** A piece of audio and where, in it, the words the bench measures from are. */
export interface Piece {
  name: string;
  samples: Int16Array;
  /** The wake word, ms from the start of `samples`, when there is one. */
  wake?: Span;
  /** The words hark is to answer or be interrupted by, when there are any. */
  speech?: Span;
}

export type WakePiece = Piece & { wake: Span };

function at(ms: number): number {
  return Math.round(ms * SAMPLES_PER_MS);
}

function fade(samples: Int16Array, ms = 15): Int16Array {
  const out = samples.slice();
  const n = Math.min(at(ms), Math.floor(out.length / 2));
  for (let i = 0; i < n; i++) {
    out[i] = Math.round((out[i] as number) * (i / n));
    out[out.length - 1 - i] = Math.round((out[out.length - 1 - i] as number) * (i / n));
  }
  return out;
}

let bed: Int16Array | undefined;

/** `ms` of the room: the same 30 s of pink noise, looped. */
export function room(ms: number): Int16Array {
  bed ??= levelled(noise('pink', 30_000), ROOM_DBFS);
  const out = new Int16Array(at(ms));
  for (let i = 0; i < out.length; i++) out[i] = bed[i % bed.length] as number;
  return out;
}

function levelled(samples: Int16Array, dbfs: number): Int16Array {
  let sum = 0;
  for (const v of samples) sum += v * v;
  const gain = (32768 * 10 ** (dbfs / 20)) / Math.sqrt(sum / samples.length);
  return samples.map((v) => Math.round(v * gain));
}

/** `part` laid over the room, from `fromMs` on. */
export function overRoom(parts: { samples: Int16Array; atMs: number }[], totalMs: number): Int16Array {
  const out = room(totalMs);
  for (const { samples, atMs } of parts) {
    const from = at(atMs);
    for (let i = 0; i < samples.length && from + i < out.length; i++) {
      out[from + i] = Math.max(-32768, Math.min(32767, (out[from + i] as number) + (samples[i] as number)));
    }
  }
  return out;
}

const LEAD_MS = 250;

interface WakeClipLabels {
  file: string;
  wakeStartMs: number;
  wakeEndMs: number;
  commandStartMs: number;
}

/** A recording cut to its wake word: from `LEAD_MS` before it to the middle of the pause after it. */
async function cut(file: string, wake: Span, pauseEndMs: number): Promise<WakePiece> {
  const all = await fixture(file);
  const endMs = (wake.endMs + pauseEndMs) / 2;
  return {
    name: file,
    samples: fade(all.slice(at(wake.startMs - LEAD_MS), at(endMs))),
    wake: { startMs: LEAD_MS, endMs: LEAD_MS + wake.endMs - wake.startMs },
  };
}

/** The committed recordings of "hey jarvis, what time is it", cut to the wake word. */
export async function recordedWakeWords(): Promise<WakePiece[]> {
  const clips = JSON.parse(readFileSync(join(FIXTURES, 'wake-clips.json'), 'utf8')) as WakeClipLabels[];
  const clean = clips.find((c) => c.file === 'wake-hey-jarvis.ogg') as WakeClipLabels;
  // The noisy one's phrase starts 1.04 s in (test/fixtures/README.md); where its wake word ends
  // is where the same espeak-ng phrase pauses (as make-noisy-wake-fixture.ts made it).
  const phrase = await speak('hey jarvis, what time is it', 'en-us', 175);
  const pause = firstPause(phrase, 250);
  return [
    await cut(clean.file, { startMs: clean.wakeStartMs, endMs: clean.wakeEndMs }, clean.commandStartMs),
    await cut('wake-hey-jarvis-noisy.ogg', { startMs: 1040, endMs: 1040 + pause.startMs }, 1040 + pause.endMs),
  ];
}

const VOICES = ['en-us', 'en-gb', 'en-gb-scotland', 'en-us+f3', 'en-gb+f4', 'en-us-nyc+m5', 'en-gb-x-rp', 'en-us+m3'];
const WORDS_PER_MINUTE = [150, 175];

/** "hey jarvis" in espeak-ng voices, alternately at 150 and 175 words per minute. */
export async function spokenWakeWords(count: number): Promise<WakePiece[]> {
  const pieces: WakePiece[] = [];
  for (let i = 0; i < count; i++) {
    const voice = VOICES[i % VOICES.length] as string;
    const wordsPerMinute = WORDS_PER_MINUTE[i % WORDS_PER_MINUTE.length] as number;
    const words = await speak('hey jarvis', voice, wordsPerMinute);
    pieces.push({
      name: `espeak-ng ${voice} ${wordsPerMinute} wpm`,
      samples: concat([quiet(LEAD_MS), words, quiet(200)]),
      wake: { startMs: LEAD_MS, endMs: LEAD_MS + words.length / SAMPLES_PER_MS },
    });
  }
  return pieces;
}

/** Questions with a hand-labelled end (test/fixtures/speech), as in the latency bench. */
export const QUESTIONS = ['speech-a', 'speech-b', 'speech-c', 'speech-e'];

/** "hey jarvis" (espeak-ng, en-us), a short pause, then a real recorded question or remark. */
export async function wakeThen(clip: string, pauseMs = 300): Promise<Piece & { speech: Span }> {
  const words = await speak('hey jarvis', 'en-us', 160);
  const question = await labelled(clip);
  const first = question.speech[0] as Span;
  const last = question.speech.at(-1) as Span;
  // The question from shortly before its first words: its lead of room sound is not waited through.
  const from = Math.max(0, first.startMs - 150);
  const startMs = LEAD_MS + words.length / SAMPLES_PER_MS + pauseMs;
  return {
    name: `hey jarvis + ${clip}`,
    samples: concat([quiet(LEAD_MS), words, quiet(pauseMs), question.samples.subarray(at(from))]),
    wake: { startMs: LEAD_MS, endMs: LEAD_MS + words.length / SAMPLES_PER_MS },
    speech: { startMs: startMs + first.startMs - from, endMs: startMs + last.endMs - from },
  };
}

/** A labelled clip as it is, its words `speech` (for talking over hark). */
export async function asItIs(clip: string): Promise<Piece & { speech: Span }> {
  const { samples, speech } = await labelled(clip);
  const span = { startMs: (speech[0] as Span).startMs, endMs: (speech.at(-1) as Span).endMs };
  return { name: clip, samples, speech: span };
}

export function writeWav(path: string, samples: Int16Array, rateHz = RATE): string {
  writeFileSync(path, pcmToWav(samples, rateHz));
  return path;
}

/** 16 kHz samples at `rateHz`. */
export function resampledTo(samples: Int16Array, rateHz: number): Int16Array {
  return resample(samples, RATE, rateHz);
}
