/**
 * Wake-word test audio that hark makes itself: phrases spoken by espeak-ng, noise from sox,
 * mixed at a chosen signal-to-noise ratio. Shared by the wake-word benchmark (which makes its
 * clips at run time) and by make-wake-fixtures (which makes the few small committed fixtures).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeFileToPcm } from '../../dist/audio/ffmpeg.js';
import { samplesOf } from '../../dist/audio/pcm.js';
import { runChild } from '../../dist/system/spawn.js';

export const RATE = 16000;
const SAMPLES_PER_MS = RATE / 1000;

function run(command: string, args: string[]): void {
  const result = runChild(command, args);
  if (result.status !== 0) {
    throw new Error(
      `${command} failed: ${(result.stderr || result.error?.message || '').trim()} (apt-get install espeak-ng sox)`,
    );
  }
}

/** `text` in an espeak-ng voice (`en-us`, `en-gb+f4`, ...) at `wordsPerMinute`, 16 kHz, silence trimmed off both ends. */
export async function speak(text: string, voice: string, wordsPerMinute: number): Promise<Int16Array> {
  const dir = mkdtempSync(join(tmpdir(), 'hark-wake-'));
  try {
    const wav = join(dir, 'speech.wav');
    run('espeak-ng', ['-v', voice, '-s', String(wordsPerMinute), '-w', wav, text]);
    return trimSilence(samplesOf(await decodeFileToPcm(wav, RATE)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `ms` of sox's `white`, `pink` or `brown` noise at full scale (the same every run: sox -R). */
export function noise(kind: 'white' | 'pink' | 'brown', ms: number): Int16Array {
  const dir = mkdtempSync(join(tmpdir(), 'hark-noise-'));
  try {
    const raw = join(dir, 'noise.raw');
    run('sox', [
      '-R',
      '-n',
      '-r',
      String(RATE),
      '-c',
      '1',
      '-b',
      '16',
      '-e',
      'signed',
      '-t',
      'raw',
      raw,
      'synth',
      String(ms / 1000),
      `${kind}noise`,
      'vol',
      '0.5',
    ]);
    const bytes = readFileSync(raw);
    return new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 2)).slice();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function meanSquare(samples: Int16Array): number {
  let sum = 0;
  for (const v of samples) sum += v * v;
  return samples.length ? sum / samples.length : 0;
}

/** Root-mean-square level of the speech itself: 10 ms frames within 30 dB of the loudest. */
export function speechLevel(samples: Int16Array): number {
  const frames: number[] = [];
  for (let at = 0; at + 160 <= samples.length; at += 160) frames.push(meanSquare(samples.subarray(at, at + 160)));
  const loudest = Math.max(...frames);
  const active = frames.filter((f) => f >= loudest / 1000);
  return Math.sqrt(active.reduce((a, b) => a + b, 0) / Math.max(1, active.length));
}

/** `signal` with `bed` (looped) added `snrDb` below the signal's speech level. */
export function mix(signal: Int16Array, bed: Int16Array, snrDb: number, level = speechLevel(signal)): Int16Array {
  const gain = level / 10 ** (snrDb / 20) / Math.sqrt(meanSquare(bed));
  const out = new Int16Array(signal.length);
  for (let i = 0; i < signal.length; i++) {
    const v = (signal[i] as number) + gain * (bed[i % bed.length] as number);
    out[i] = Math.max(-32768, Math.min(32767, Math.round(v)));
  }
  return out;
}

export function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

export function quiet(ms: number): Int16Array {
  return new Int16Array(Math.round(ms * SAMPLES_PER_MS));
}

export function msOf(samples: number): number {
  return samples / SAMPLES_PER_MS;
}

/** Drops what is quieter than -50 dBFS at both ends. */
function trimSilence(samples: Int16Array): Int16Array {
  const loud = (v: number): boolean => Math.abs(v) > 100;
  let start = 0;
  while (start < samples.length && !loud(samples[start] as number)) start++;
  let end = samples.length;
  while (end > start && !loud(samples[end - 1] as number)) end--;
  return samples.slice(start, end);
}

/**
 * Where the pause after the wake word lies in a phrase such as "hey jarvis, what time is it":
 * the first stretch of at least 40 ms of 10 ms frames below -50 dBFS, after `notBeforeMs`.
 */
export function firstPause(samples: Int16Array, notBeforeMs: number): { startMs: number; endMs: number } {
  const frame = 10 * SAMPLES_PER_MS;
  let runStart: number | undefined;
  for (let at = Math.round(notBeforeMs * SAMPLES_PER_MS); at + frame <= samples.length; at += frame) {
    let peak = 0;
    for (let i = at; i < at + frame; i++) peak = Math.max(peak, Math.abs(samples[i] as number));
    if (peak <= 100) {
      runStart ??= at;
      continue;
    }
    if (runStart !== undefined && at - runStart >= 4 * frame) return { startMs: msOf(runStart), endMs: msOf(at) };
    runStart = undefined;
  }
  throw new Error('no pause found after the wake word');
}
