import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Observable, retry, timer, type Subscription } from 'rxjs';
import { realClock, type Clock } from '../system/clock.js';
import type { Logger } from '../system/logger.js';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { childEnvironment } from '../system/spawn.js';

export interface MicOptions {
  recorder: 'sox' | 'rec' | 'arecord';
  device: string | null;
  sampleRateHz: number;
  /** Longest wait between attempts to reopen a failed microphone. */
  retryMaxMs: number;
  logger: Logger;
  time?: Clock;
  /** Starts a recording: node-record-lpcm16 unless a test stands in. */
  record?: (options: Record<string, unknown>) => Recording;
  /** Reopen a failed microphone (the daemon); false raises the first failure (a one-off check). */
  reopen?: boolean;
}

/** The microphone failed; `recorderSaid` holds the recorder's last lines on stderr, its own words for why. */
export class MicError extends Error {
  override readonly name = 'MicError';
  constructor(
    message: string,
    readonly recorderSaid: string | undefined,
    cause?: unknown,
  ) {
    super(recorderSaid ? `${message}: ${recorderSaid}` : message, { cause });
  }
}

export interface Recording {
  stream(): Readable;
  stop(): void;
  process: ChildProcess;
}

interface RecordModule {
  record(options: Record<string, unknown>): Recording;
}

/**
 * hark's own recorder definitions (compiled from recorders/*.cts), which ask for 20 ms of audio at
 * a time; node-record-lpcm16 loads them by absolute path like its built-in ones.
 */
export function recorderDefinition(recorder: MicOptions['recorder']): string {
  return join(PACKAGE_ROOT, 'dist', 'audio', 'recorders', `${recorder}.cjs`);
}

/** What to do about a microphone that fails: every message about one ends with it. */
export const MIC_FIX =
  'list the microphones with `hark devices` and set audio.captureDevice (HARK_AUDIO_CAPTURE_DEVICE); a device busy elsewhere must be freed first';

/** The first wait before reopening a failed microphone; each further failure doubles it. */
const FIRST_RETRY_MS = 250;
/** How long a recorder that closed its output may take to exit before hark stops waiting for its last words. */
const CLOSE_GRACE_MS = 500;
const LAST_LINES = 3;

/** Keeps the last lines a recorder wrote to stderr. */
function lastWords(child: ChildProcess): { text(): string | undefined } {
  let tail = '';
  child.stderr?.on('data', (chunk: Buffer | string) => {
    tail = (tail + chunk.toString()).slice(-2000);
  });
  return {
    text: () => {
      const lines = tail
        .split('\n')
        .map((line) => line.trim())
        .filter(Boolean);
      return lines.length ? lines.slice(-LAST_LINES).join(' | ') : undefined;
    },
  };
}

function lpcm16Record(options: Record<string, unknown>): Recording {
  const recorder = createRequire(import.meta.url)('node-record-lpcm16') as RecordModule;
  return recorder.record(options);
}

/**
 * The microphone through node-record-lpcm16 (raw 16-bit mono, since its WAV header on a pipe
 * is wrong). A recorder that fails, exits or disappears is reopened with exponential backoff,
 * and the log says so; the daemon keeps running meanwhile.
 */
export function micSource(options: MicOptions): Observable<Buffer> {
  const record = options.record ?? lpcm16Record;
  const time = options.time ?? realClock;
  const open = new Observable<Buffer>((subscriber) => {
    const recording = record({
      sampleRate: options.sampleRateHz,
      channels: 1,
      audioType: 'raw',
      recorder: recorderDefinition(options.recorder),
      endOnSilence: false,
      threshold: 0,
      // node-record-lpcm16 spawns the recorder itself; hark's recorder definitions pass this on.
      env: childEnvironment(),
      ...(options.device ? { device: options.device } : {}),
    });
    const said = lastWords(recording.process);
    const fail = (reason: unknown): void => {
      // The library emits its errors as strings.
      const message = reason instanceof Error ? reason.message : (String(reason).split('\n')[0] ?? '');
      subscriber.error(new MicError(message, said.text(), reason));
    };
    recording.process.on('error', fail);
    const stream = recording.stream();
    stream.on('data', (chunk: Buffer) => subscriber.next(chunk));
    stream.on('error', fail);
    let grace: Subscription | undefined;
    const closed = (): void => fail(new Error(`${options.recorder} stopped delivering audio`));
    stream.on('end', () => {
      if (!recording.process.stderr || recording.process.exitCode !== null) return closed();
      // Its last words ("Device or resource busy") may still be in the pipe: all are in once it has closed.
      recording.process.once('close', closed);
      grace = time.scheduler.schedule(closed, CLOSE_GRACE_MS);
    });
    options.logger.info('mic.open', { recorder: options.recorder, device: options.device ?? 'default' });
    return () => {
      grace?.unsubscribe();
      recording.process.removeListener('close', closed);
      stream.removeAllListeners('end');
      stream.removeAllListeners('data');
      recording.process.removeAllListeners('error');
      recording.process.on('error', () => undefined);
      if (recording.process.exitCode === null) recording.stop();
    };
  });
  if (options.reopen === false) return open;
  return open.pipe(
    retry({
      resetOnSuccess: true,
      delay: (error: Error, attempt) => {
        const delayMs = Math.min(options.retryMaxMs, FIRST_RETRY_MS * 2 ** (attempt - 1));
        const recorderSaid = error instanceof MicError ? error.recorderSaid : undefined;
        options.logger.warn('mic.failed', {
          error: error.message,
          ...(recorderSaid ? { recorderSaid } : {}),
          attempt,
          reopenInMs: delayMs,
          fix: MIC_FIX,
        });
        return timer(delayMs, time.scheduler);
      },
    }),
  );
}
