import { timecode, type ChunkResult } from '../listen/transcribe-long.js';

export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

export interface TranscribeProgress {
  chunk(done: readonly ChunkResult[]): void;
  end(): void;
}

/**
 * One line on a terminal that says how a long transcription is going, rewritten after every
 * chunk: chunks done of about how many, how far into the recording, how long it has taken.
 * Nothing at all when the output is not a terminal (a log, a pipe).
 */
export function transcribeProgress(
  stream: ProgressStream,
  durationMs: number | undefined,
  now: () => number,
): TranscribeProgress | undefined {
  if (!stream.isTTY) return undefined;
  const startedAt = now();
  let shown = false;
  return {
    chunk(done) {
      stream.write(`\r\x1b[2K${progressLine(done, durationMs, now() - startedAt)}`);
      shown = true;
    },
    end() {
      if (shown) stream.write('\r\x1b[2K');
    },
  };
}

/** "transcribing: 12 of ~95 chunks, 6:00 of 40:00, 0:45 elapsed" */
export function progressLine(done: readonly ChunkResult[], durationMs: number | undefined, elapsedMs: number): string {
  const reachedMs = done.at(-1)?.endMs ?? 0;
  let total = '';
  if (durationMs !== undefined && reachedMs > 0) {
    // The chunks so far tell how long the next ones will be (cuts fall at quiet points).
    const remaining = Math.max(0, durationMs - reachedMs);
    total = ` of ~${done.length + Math.ceil(remaining / (reachedMs / done.length) - 0.05)}`;
  }
  const where = durationMs === undefined ? timecode(reachedMs) : `${timecode(reachedMs)} of ${timecode(durationMs)}`;
  const failed = done.filter((c) => c.status !== 'ok').length;
  return (
    `transcribing: ${done.length}${total} chunks, ${where}, ${timecode(elapsedMs)} elapsed` +
    (failed ? `, ${failed} not transcribed` : '')
  );
}
