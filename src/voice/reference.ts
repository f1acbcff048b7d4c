import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { decodeFileToPcm } from '../audio/ffmpeg.js';
import { dataUrl } from '../audio/data-url.js';
import { resample, rms, samplesOf } from '../audio/pcm.js';
import { WAV_HEADER_BYTES, pcmToWav, readPcm16Mono } from '../audio/wav-header.js';
import { writeAtomically } from '../system/atomic-file.js';
import { quietestCut } from '../listen/long-audio.js';
import { SileroVad } from '../listen/silero-vad.js';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE_HZ } from '../listen/vad.js';
import { LIMITS, secondsAgainst } from '../contract/limits.js';
import { referenceAudioProblem } from '../contract/rules/speech.js';
import type { VoiceReference } from '../contract/wire.js';

/** Reference clips are stored as 24 kHz 16-bit mono WAV: clear speech, and far under 10 MB at 30 s. */
export const REFERENCE_RATE_HZ = 24000;
/** A clip is trimmed to end at the quietest point within this many ms before the 30 s limit. */
const TRIM_SEARCH_MS = 5000;
const RECOMMENDED_MIN_SPEECH_MS = 10_000;
const MIN_SPEECH_MS = 2000;
/** Silero's probability from which a frame is speech. */
const SPEECH_PROBABILITY = 0.5;

export class ReferenceClipError extends Error {
  override readonly name = 'ReferenceClipError';
}

export interface PreparedReference {
  reference: VoiceReference;
  durationMs: number;
  /** How much of it the VAD heard as speech, when it was prepared (a clip read from the cache passed then). */
  speechMs: number | undefined;
  trimmedFromMs: number | undefined;
  /** Where the prepared WAV is cached. */
  cachedAt: string;
  fromCache: boolean;
  /** What to know about the clip, said when it is prepared (by `config check`, or the first start). */
  warnings: string[];
}

export function referenceCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  // systemd's CacheDirectory=hark sets CACHE_DIRECTORY.
  return env.CACHE_DIRECTORY ?? join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'hark');
}

/**
 * A voice reference from any audio file ffmpeg reads: converted once to mono WAV, trimmed to
 * at most 30 s at a quiet point, refused when the VAD hears too little speech in it (noise,
 * music, silence), checked against the 10 MB data-URL limit, and cached by the content hash of
 * the source file, so start-up after the first is a file read (no VAD), and every sentence
 * reuses the same encoded string.
 */
export async function prepareReference(
  path: string,
  text: string | null,
  cacheDir = referenceCacheDir(),
): Promise<PreparedReference> {
  if (!text?.trim()) {
    throw new ReferenceClipError(`voice.referenceText is missing: the clip ${path} needs its verbatim transcript`);
  }
  const source = readClip(path);
  // v2: a clip is cached only once the VAD has heard enough speech in it (v1 went by its level).
  const key = createHash('sha256').update(source).update(`|${REFERENCE_RATE_HZ}|v2`).digest('hex').slice(0, 32);
  const cachedAt = join(cacheDir, `reference-${key}.wav`);
  const cached = readCached(cachedAt);
  const fromCache = cached !== undefined;
  let samples: Int16Array;
  let trimmedFromMs: number | undefined;
  if (cached) {
    samples = cached;
  } else {
    let decoded: Int16Array;
    try {
      decoded = samplesOf(await decodeFileToPcm(path, REFERENCE_RATE_HZ));
    } catch (error) {
      throw new ReferenceClipError(
        `voice.reference ${path}: ffmpeg cannot read it as audio (${(error as Error).message})`,
      );
    }
    ({ samples, trimmedFromMs } = trimToLimit(decoded));
  }
  const durationMs = (samples.length / REFERENCE_RATE_HZ) * 1000;
  const speechMs = fromCache ? undefined : await speechIn(samples);
  if (speechMs !== undefined && speechMs < MIN_SPEECH_MS) {
    throw new ReferenceClipError(
      `voice.reference ${path}: too little speech to clone a voice from: the VAD hears ${secondsAgainst(speechMs, MIN_SPEECH_MS)} of speech in its ${(durationMs / 1000).toFixed(1)} s (at least 2 s; give 10 to 30 s of clear speech)`,
    );
  }
  const wav = pcmToWav(samples, REFERENCE_RATE_HZ);
  const reference = { audio: dataUrl(wav, 'audio/wav'), text: text.trim() };
  const problem = referenceAudioProblem(reference.audio);
  if (problem)
    throw new ReferenceClipError(
      `voice.reference ${path}: ${problem.limit}${problem.actual ? ` (got ${problem.actual})` : ''}`,
    );
  const warnings: string[] = [];
  if (!fromCache) {
    try {
      mkdirSync(cacheDir, { recursive: true });
      await writeAtomically(cachedAt, (partial) => writeFile(partial, wav));
    } catch (error) {
      // The clip is fine; only the next start will convert it again.
      warnings.push(
        `the clip could not be cached in ${cacheDir} (${(error as Error).message}): it is converted at every start`,
      );
    }
  }
  if (trimmedFromMs !== undefined) {
    warnings.push(
      `the clip was ${(trimmedFromMs / 1000).toFixed(1)} s and is trimmed to ${(durationMs / 1000).toFixed(1)} s: voice.referenceText must be the transcript of that first part only`,
    );
  }
  if (speechMs !== undefined && speechMs < RECOMMENDED_MIN_SPEECH_MS) {
    warnings.push(
      `the clip has ${secondsAgainst(speechMs, RECOMMENDED_MIN_SPEECH_MS)} of speech; 10 to 30 s clones a voice best`,
    );
  }
  return { reference, durationMs, speechMs, trimmedFromMs, cachedAt, fromCache, warnings };
}

/** The cached clip, or undefined when there is none or it is not whole (cut short, damaged): then it is made again. */
function readCached(path: string): Int16Array | undefined {
  try {
    const bytes = readFileSync(path);
    // Written by pcmToWav: a 44-byte header whose data size is the rest of the file.
    if (bytes.length < WAV_HEADER_BYTES || bytes.readUInt32LE(40) !== bytes.length - WAV_HEADER_BYTES) return undefined;
    return samplesOf(readPcm16Mono(bytes).pcm);
  } catch {
    return undefined;
  }
}

function readClip(path: string): Buffer {
  if (!existsSync(path)) {
    const where = isAbsolute(path)
      ? ''
      : ` (looked for ${resolve(path)}: a relative path is taken from where hark runs)`;
    throw new ReferenceClipError(`voice.reference ${path}: no such file${where}`);
  }
  if (statSync(path).isDirectory())
    throw new ReferenceClipError(`voice.reference ${path}: is a directory, not an audio file`);
  try {
    return readFileSync(path);
  } catch (error) {
    throw new ReferenceClipError(
      `voice.reference ${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
    );
  }
}

/** At most 30 s (a little under, so rounding never crosses it), ending at a quiet point. */
function trimToLimit(samples: Int16Array): { samples: Int16Array; trimmedFromMs: number | undefined } {
  const limitMs = LIMITS.speech.referenceMaxDurationMs - 100;
  const durationMs = (samples.length / REFERENCE_RATE_HZ) * 1000;
  if (durationMs <= limitMs) return { samples, trimmedFromMs: undefined };
  const cut = quietestCut(samples, REFERENCE_RATE_HZ, limitMs - TRIM_SEARCH_MS, limitMs);
  return { samples: samples.slice(0, cut), trimmedFromMs: durationMs };
}

/**
 * How much of the clip is speech, ms, as Silero hears it: noise, music or clipping as loud as a
 * voice is not. Counted up to what clones best (more makes no difference to what is said). Where
 * Silero cannot load, the level alone says (then loud noise passes).
 */
async function speechIn(samples: Int16Array): Promise<number> {
  let vad: SileroVad;
  try {
    // Every frame is scored: none is skipped as quiet.
    vad = await SileroVad.load({ capDbfs: -Infinity, marginDb: 0 });
  } catch {
    return voicedMs(samples);
  }
  try {
    const audio = resample(samples, REFERENCE_RATE_HZ, VAD_SAMPLE_RATE_HZ);
    const frameMs = (VAD_FRAME_SAMPLES * 1000) / VAD_SAMPLE_RATE_HZ;
    let speechMs = 0;
    for (
      let at = 0;
      at + VAD_FRAME_SAMPLES <= audio.length && speechMs < RECOMMENDED_MIN_SPEECH_MS;
      at += VAD_FRAME_SAMPLES
    ) {
      if ((await vad.probability(audio.subarray(at, at + VAD_FRAME_SAMPLES))) >= SPEECH_PROBABILITY)
        speechMs += frameMs;
    }
    return speechMs;
  } finally {
    await vad.close();
  }
}

/** Frames of 20 ms loud enough to be a voice, ms. */
function voicedMs(samples: Int16Array): number {
  const frame = REFERENCE_RATE_HZ / 50;
  let voiced = 0;
  for (let at = 0; at + frame <= samples.length; at += frame) if (rms(samples, at, at + frame) > 0.01) voiced++;
  return voiced * 20;
}
