import { open, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { abortError } from '../system/abort.js';
import { findOnPath } from '../system/find-on-path.js';
import { spawnChild } from '../system/spawn.js';
import { isWav, readPcm16Mono } from './wav-header.js';

let cachedPath: string | undefined;

/** The system's `ffmpeg` when on PATH (current codecs), else the static build from @ffmpeg-installer if it was installed (an optional peer; a checkout has it for its tests). */
export function ffmpegPath(): string {
  if (cachedPath) return cachedPath;
  const override = process.env.HARK_FFMPEG;
  if (override) return (cachedPath = override);
  // A PATH lookup, not a trial run: `ffmpeg -version` costs a tenth of a second at every start.
  const system = findOnPath('ffmpeg', process.env.PATH ?? '');
  if (system) return (cachedPath = system);
  try {
    const require = createRequire(import.meta.url);
    const installer = require('@ffmpeg-installer/ffmpeg') as { path: string };
    return (cachedPath = installer.path);
  } catch {
    throw new Error('ffmpeg not found: install it (sudo apt install ffmpeg)');
  }
}

/** Runs ffmpeg with `input` on stdin and returns its stdout; the error carries ffmpeg's last words. */
export function runFfmpeg(args: readonly string[], input?: Buffer, signal?: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args], {
      stdio: [input ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    const onAbort = (): void => {
      child.kill('SIGKILL');
      reject(abortError(signal?.reason));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => {
      err = (err + chunk.toString()).slice(-2000);
    });
    child.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', (code) => {
      signal?.removeEventListener('abort', onAbort);
      if (code === 0) resolve(Buffer.concat(out));
      else
        reject(
          new Error(`ffmpeg failed (exit ${code}): ${err.trim().split('\n').slice(-3).join(' | ') || 'no message'}`),
        );
    });
    if (input && child.stdin) {
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
    }
  });
}

/**
 * Any audio file ffmpeg can read, as 16-bit mono PCM at `sampleRateHz`. A WAV that already is
 * that is read as it is: starting ffmpeg costs more CPU than hark's own start-up on a small
 * board (docs/small-board-bench.md, "Start-up").
 */
export async function decodeFileToPcm(path: string, sampleRateHz: number, signal?: AbortSignal): Promise<Buffer> {
  const asIs = await readyPcm(path, sampleRateHz);
  if (asIs) return asIs;
  return runFfmpeg(
    ['-i', path, '-f', 's16le', '-acodec', 'pcm_s16le', '-ac', '1', '-ar', String(sampleRateHz), 'pipe:1'],
    undefined,
    signal,
  );
}

/** The samples of a 16-bit mono WAV at `sampleRateHz`; undefined for anything else (ffmpeg's to read). */
async function readyPcm(path: string, sampleRateHz: number): Promise<Buffer | undefined> {
  if (!(await startsAsWav(path))) return undefined;
  const bytes = await readFile(path).catch(() => undefined);
  if (!bytes) return undefined;
  try {
    const { pcm, sampleRateHz: rate } = readPcm16Mono(bytes);
    return rate === sampleRateHz ? Buffer.from(pcm) : undefined;
  } catch {
    return undefined;
  }
}

async function startsAsWav(path: string): Promise<boolean> {
  const file = await open(path).catch(() => undefined);
  if (!file) return false;
  try {
    const head = Buffer.alloc(12);
    await file.read(head, 0, head.length, 0);
    return isWav(head);
  } finally {
    await file.close();
  }
}

const ENCODE_ARGS: Record<string, string[]> = {
  mp3: ['-f', 'mp3'],
  opus: ['-c:a', 'libopus', '-f', 'ogg'],
  aac: ['-c:a', 'aac', '-f', 'adts'],
  wav: ['-f', 'wav'],
};

/** 16-bit mono PCM encoded as mp3, opus (in Ogg), aac (ADTS) or wav. */
export function encodePcm(pcm: Buffer, sampleRateHz: number, format: keyof typeof ENCODE_ARGS): Promise<Buffer> {
  const args = ENCODE_ARGS[format];
  if (!args) return Promise.reject(new Error(`cannot encode to ${format}`));
  return runFfmpeg(['-f', 's16le', '-ar', String(sampleRateHz), '-ac', '1', '-i', 'pipe:0', ...args, 'pipe:1'], pcm);
}

export interface AudioProbe {
  /** The file has an audio stream ffmpeg can read. */
  audio: boolean;
  durationMs: number | undefined;
  /** ffmpeg's last words when it found no audio. */
  problem: string | undefined;
}

/** What ffmpeg says of a file before decoding it: whether it holds audio, and how long it is. */
export function probeAudio(path: string): Promise<AudioProbe> {
  return new Promise((resolve, reject) => {
    const child = spawnChild(ffmpegPath(), ['-hide_banner', '-nostdin', '-i', path], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let text = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      if (text.length < 64_000) text += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', () => {
      const duration = /Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)/.exec(text);
      const durationMs = duration
        ? Math.round((Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3])) * 1000)
        : undefined;
      const audio = /Stream #.*: Audio:/.test(text);
      const lines = text
        .trim()
        .split('\n')
        .filter((line) => !/output file/i.test(line));
      resolve({ audio, durationMs, problem: audio ? undefined : (lines.at(-1)?.trim() ?? 'no audio stream') });
    });
  });
}
