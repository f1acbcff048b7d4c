import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { Observable, retry, timer } from 'rxjs';
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

/** The first wait before reopening a failed microphone; each further failure doubles it. */
const FIRST_RETRY_MS = 250;

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
    const fail = (reason: unknown): void => {
      // The library emits its errors as strings.
      subscriber.error(reason instanceof Error ? reason : new Error(String(reason).split('\n')[0]));
    };
    recording.process.on('error', fail);
    const stream = recording.stream();
    stream.on('data', (chunk: Buffer) => subscriber.next(chunk));
    stream.on('error', fail);
    stream.on('end', () => fail(new Error(`${options.recorder} stopped delivering audio`)));
    options.logger.info('mic.open', { recorder: options.recorder, device: options.device ?? 'default' });
    return () => {
      stream.removeAllListeners('end');
      stream.removeAllListeners('data');
      recording.process.removeAllListeners('error');
      recording.process.on('error', () => undefined);
      if (recording.process.exitCode === null) recording.stop();
    };
  });
  return open.pipe(
    retry({
      resetOnSuccess: true,
      delay: (error: Error, attempt) => {
        const delayMs = Math.min(options.retryMaxMs, FIRST_RETRY_MS * 2 ** (attempt - 1));
        options.logger.warn('mic.failed', { error: error.message, attempt, reopenInMs: delayMs });
        return timer(delayMs, time.scheduler);
      },
    }),
  );
}
