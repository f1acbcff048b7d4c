import { constants, type Stats } from 'node:fs';
import { access, open, realpath, stat } from 'node:fs/promises';
import { dirname, extname, resolve } from 'node:path';
import { probeAudio, type AudioProbe } from '../audio/ffmpeg.js';
import { readWavHead } from '../audio/wav-head.js';
import type { HarkConfig } from '../config/schema.js';
import { atomicFile } from '../system/atomic-file.js';
import { UsageError } from './command-context.js';

/**
 * What a command is given to read and to write, checked before any work: a mistake is a usage
 * error naming the file as the user wrote it, never a failure after the work is done.
 */

/** The audio file's facts, or a usage mistake that names it: missing, a directory, unreadable. */
export function audioFileStats(path: string): Promise<Stats> {
  return readableFile(path, 'an audio file');
}

/** The file's facts, or a usage mistake that names it: missing, a directory (`what` it should be), unreadable. */
export async function readableFile(path: string, what: string): Promise<Stats> {
  let info: Stats;
  try {
    info = await stat(path);
    await access(path, constants.R_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(code === 'ENOENT' ? `${path}: no such file` : `${path}: cannot be read (${code})`);
  }
  if (info.isDirectory()) throw new UsageError(`${path}: is a directory, not ${what}`);
  return info;
}

/** A file ffmpeg can read as audio, or a usage mistake that says why not. */
export async function checkAudioInput(path: string): Promise<void> {
  await audioFileStats(path);
  await probeAudioFile(path);
}

/**
 * What a file known to be there holds, or a usage mistake when it holds no audio: a WAV says so
 * in its header; anything else is for ffmpeg to tell (a fifth of a second here to start it,
 * before `run --input` can start listening).
 */
export async function probeAudioFile(path: string): Promise<AudioProbe> {
  const probe = (await wavProbe(path)) ?? (await probeAudio(path));
  if (!probe.audio) throw new UsageError(`${path}: ffmpeg cannot read it as audio (${probe.problem ?? 'no audio'})`);
  return probe;
}

/** A WAV's own account of itself; undefined for any other file, or a WAV its header cannot vouch for. */
async function wavProbe(path: string): Promise<AudioProbe | undefined> {
  const file = await open(path).catch(() => undefined);
  if (!file) return undefined;
  try {
    const { durationMs } = await readWavHead(file);
    return { audio: true, durationMs: Math.round(durationMs), problem: undefined };
  } catch {
    return undefined;
  } finally {
    await file.close();
  }
}

/** A file the command must not write over, and what it is to the user ("the input"). */
export interface KeptFile {
  path: string | null | undefined;
  what: string;
}

/**
 * A file that can be written where it is asked for: its directory exists and may be written to,
 * it is no directory itself, and it is none of the files it must not destroy (`kept`: the
 * recording it reads, the voice clip it speaks with).
 */
export async function checkOutputFile(path: string, kept: KeptFile[] = []): Promise<void> {
  // Where it will be written: through a link, beside the file the link names.
  const { target } = atomicFile(path);
  const directory = dirname(resolve(target));
  const directoryInfo = await stat(directory).catch(() => undefined);
  if (!directoryInfo?.isDirectory()) throw new UsageError(`${path}: no such directory (${directory})`);
  try {
    await access(directory, constants.W_OK);
  } catch {
    throw new UsageError(`${path}: its directory cannot be written to (${directory})`);
  }
  const existing = await stat(target).catch(() => undefined);
  if (!existing) return;
  if (existing.isDirectory()) throw new UsageError(`${path}: is a directory`);
  try {
    await access(target, constants.W_OK);
  } catch {
    throw new UsageError(`${path}: is write-protected`);
  }
  for (const { path: keep, what } of kept) {
    if (keep && target === (await realpath(keep).catch(() => keep))) {
      throw new UsageError(`${path}: is ${what}; writing it would destroy it`);
    }
  }
}

/** Where a command writes WAV audio: a name ending in .wav, so that what is in it is what it says. */
export function checkWavName(path: string): void {
  if (extname(path).toLowerCase() !== '.wav') throw new UsageError(`${path}: hark writes WAV here; name it .wav`);
}

/** What a command that writes audio must not write over: the recording it reads, the voice clip it speaks with. */
export function keptBy(config: HarkConfig, input?: string): KeptFile[] {
  return [
    { path: input, what: 'the input' },
    { path: config.voice.reference, what: 'the voice clip (voice.reference)' },
  ];
}
