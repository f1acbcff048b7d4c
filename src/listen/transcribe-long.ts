import { pcmToWav } from '../audio/wav-header.js';
import { isAbortError } from '../system/abort.js';
import { excerpt } from '../system/secrets.js';
import { splitAtQuietPoints, type AudioChunk } from './long-audio.js';
import { joinTranscripts, promptTail } from './transcript.js';

const MAX_REASON_CHARS = 160;

/** Transcribes one WAV file; `prompt` carries the previous chunk's tail. */
export type TranscribeWav = (wav: Buffer, prompt: string | undefined, signal?: AbortSignal) => Promise<string>;

/** What became of one chunk of a long recording. */
export interface ChunkResult {
  startMs: number;
  /** Undefined for audio that could not be decoded to its end. */
  endMs: number | undefined;
  status: 'ok' | 'failed' | 'skipped';
  text?: string;
  error?: string;
}

export interface LongTranscript {
  /** What was transcribed, with a marked gap wherever a chunk was not. */
  text: string;
  /** The texts of the chunks that were transcribed. */
  parts: string[];
  chunks: ChunkResult[];
  complete: boolean;
}

export interface TranscribeChunksOptions {
  signal?: AbortSignal | undefined;
  /** The recording's length when known: the end of a gap left by a decoder that failed. */
  durationMs?: number | undefined;
  /** After this many failed chunks in a row the rest is not sent: the service is down, not one chunk bad. */
  maxFailuresInARow?: number;
  /** Called after each chunk, for progress. */
  onChunk?: (chunk: ChunkResult, all: readonly ChunkResult[]) => void;
}

/**
 * Transcribes audio of any length, chunk by chunk as the chunks come (each sent with the tail
 * of the text before it as `prompt`). A chunk that fails for good leaves a marked gap and the
 * rest goes on, so a fault costs only its own stretch: `[… 12:30–13:00 not transcribed: why]`.
 */
export async function transcribeChunks(
  chunks: AsyncIterable<AudioChunk> | Iterable<AudioChunk>,
  sampleRateHz: number,
  transcribe: TranscribeWav,
  options: TranscribeChunksOptions = {},
): Promise<LongTranscript> {
  const maxFailures = options.maxFailuresInARow ?? 3;
  const results: ChunkResult[] = [];
  const parts: string[] = [];
  const msAt = (sample: number): number => Math.round((sample / sampleRateHz) * 1000);
  let failuresInARow = 0;
  let reachedMs = 0;
  const record = (result: ChunkResult): void => {
    results.push(result);
    options.onChunk?.(result, results);
  };
  try {
    for await (const chunk of chunks) {
      const span = { startMs: msAt(chunk.startSample), endMs: msAt(chunk.startSample + chunk.samples.length) };
      reachedMs = span.endMs;
      if (failuresInARow >= maxFailures) {
        record({ ...span, status: 'skipped', error: `not sent after ${maxFailures} failed chunks in a row` });
        continue;
      }
      const before = joinTranscripts(parts);
      try {
        const wav = chunk.wav ?? pcmToWav(chunk.samples, sampleRateHz);
        const text = await transcribe(wav, before ? promptTail(before) : undefined, options.signal);
        parts.push(text);
        failuresInARow = 0;
        record({ ...span, status: 'ok', text });
      } catch (error) {
        if (isAbortError(error) || options.signal?.aborted) throw error;
        failuresInARow++;
        record({ ...span, status: 'failed', error: reasonOf(error) });
      }
    }
  } catch (error) {
    if (isAbortError(error) || options.signal?.aborted || results.length === 0) throw error;
    // The decoder gave up part way: keep what was transcribed, and say where the rest went.
    record({ startMs: reachedMs, endMs: options.durationMs, status: 'failed', error: reasonOf(error) });
  }
  return {
    text: withGaps(results),
    parts,
    chunks: results,
    complete: results.every((r) => r.status === 'ok'),
  };
}

/** What was transcribed before the user stopped it, the rest (to `durationMs`, when known) marked as stopped. */
export function stoppedEarly(results: readonly ChunkResult[], durationMs: number | undefined): LongTranscript {
  const startMs = results.at(-1)?.endMs ?? 0;
  const chunks: ChunkResult[] = [...results, { startMs, endMs: durationMs, status: 'skipped', error: 'stopped' }];
  return {
    text: withGaps(chunks),
    parts: chunks.flatMap((chunk) => (chunk.status === 'ok' ? [chunk.text ?? ''] : [])),
    chunks,
    complete: false,
  };
}

/** Audio already in memory, cut at quiet points. */
export function transcribeLong(
  samples: Int16Array,
  sampleRateHz: number,
  transcribe: TranscribeWav,
  signal?: AbortSignal,
): Promise<LongTranscript> {
  let startSample = 0;
  const chunks = splitAtQuietPoints(samples, sampleRateHz).map((part) => {
    const chunk = { startSample, samples: part };
    startSample += part.length;
    return chunk;
  });
  return transcribeChunks(chunks, sampleRateHz, transcribe, { signal });
}

/** The text, with consecutive chunks that were not transcribed marked as one gap. */
export function withGaps(results: readonly ChunkResult[]): string {
  const pieces: string[] = [];
  for (let i = 0; i < results.length;) {
    const result = results[i] as ChunkResult;
    if (result.status === 'ok') {
      pieces.push(result.text ?? '');
      i++;
      continue;
    }
    let last = result;
    const reasons = new Set<string>();
    for (; i < results.length && results[i]?.status !== 'ok'; i++) {
      last = results[i] as ChunkResult;
      reasons.add(last.error ?? 'unknown');
    }
    const end = last.endMs === undefined ? 'end' : timecode(last.endMs);
    pieces.push(`[… ${timecode(result.startMs)}–${end} not transcribed: ${[...reasons].join('; ')}]`);
  }
  return joinTranscripts(pieces);
}

/** A position in audio (or a length of time): 12:30, or 1:02:03 past an hour. */
export function timecode(ms: number): string {
  const total = Math.floor(ms / 1000);
  const [h, m, s] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (n: number): string => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
}

/** Why a chunk failed, on one line and short enough to sit in the text. */
function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = excerpt(message.replace(/\s+/g, ' ').trim(), MAX_REASON_CHARS + 1);
  return (line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS - 1)}…` : line) || 'unknown error';
}
