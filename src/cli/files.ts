import { constants, type Stats } from 'node:fs';
import { access, realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { probeAudio, type AudioProbe } from '../audio/ffmpeg.js';
import { wholeFile } from '../system/whole-file.js';
import { UsageError } from './context.js';

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

/** A file ffmpeg can read as audio (what it found), or a usage mistake that says why not. */
export async function checkAudioInput(path: string): Promise<AudioProbe> {
  await audioFileStats(path);
  const probe = await probeAudio(path);
  if (!probe.audio) throw new UsageError(`${path}: ffmpeg cannot read it as audio (${probe.problem ?? 'no audio'})`);
  return probe;
}

/**
 * A file that can be written where it is asked for: its directory exists and may be written to,
 * it is no directory itself, and it is not the file the command reads (`input`), which writing
 * would destroy.
 */
export async function checkOutputFile(path: string, input?: string): Promise<void> {
  // Where it will be written: through a link, beside the file the link names.
  const { target } = wholeFile(path);
  const directory = dirname(resolve(target));
  const directoryInfo = await stat(directory).catch(() => undefined);
  if (!directoryInfo?.isDirectory()) throw new UsageError(`${path}: no such directory (${directory})`);
  try {
    await access(directory, constants.W_OK);
  } catch {
    throw new UsageError(`${path}: its directory cannot be written to (${directory})`);
  }
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) throw new UsageError(`${path}: is a directory`);
  if (existing) {
    try {
      await access(target, constants.W_OK);
    } catch {
      throw new UsageError(`${path}: is write-protected`);
    }
  }
  if (existing && input !== undefined && target === (await realpath(input).catch(() => input))) {
    throw new UsageError(`${path}: is the input too; writing it would destroy the recording`);
  }
}
