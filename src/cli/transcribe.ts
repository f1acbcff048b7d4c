import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { basename, extname } from 'node:path';
import { decodeStream } from '../audio/decode-stream.js';
import { UsageError, type CommandContext, withContext, type GlobalOptions } from './command-context.js';
import { audioDurationMs } from '../contract/rules/transcription.js';
import { LIMITS } from '../contract/limits.js';
import { languageProblem } from '../config/schema-parts.js';
import { cutAsItArrives } from '../listen/long-audio.js';
import {
  timecode,
  stoppedEarly,
  transcribeChunks,
  type ChunkResult,
  type LongTranscript,
} from '../listen/transcribe-long.js';
import { redact } from '../system/secrets.js';
import { audioFileStats, probeAudioFile } from './files.js';
import { interruptible } from './interrupt.js';
import { transcribeProgress } from './progress.js';

const RATE_HZ = 16000;
/** Files longer than this get a progress line on a terminal. */
const PROGRESS_FROM_MS = 30_000;

interface TranscribeOptions {
  language?: string;
  prompt?: string;
  json?: boolean;
  /** Ends the transcription: what was transcribed by then is kept (see `stoppedEarly`). */
  signal?: AbortSignal;
}

/**
 * A WAV or MP3 within the limits is sent as it is; anything else is decoded by ffmpeg as it is
 * read and, when longer than 30 s, cut at quiet points into chunks sent one after another.
 * Memory stays flat however long the file; a chunk that fails leaves a marked gap.
 */
export async function transcribeFile(
  ctx: CommandContext,
  path: string,
  options: TranscribeOptions = {},
): Promise<LongTranscript> {
  const language = options.language ?? ctx.config.transcription.language ?? undefined;
  const model = ctx.config.transcription.model;
  const info = await audioFileStats(path);
  const extension = extname(path).toLowerCase();
  if ((extension === '.wav' || extension === '.mp3') && info.size <= LIMITS.transcription.fileMaxBytes) {
    const bytes = await readFile(path);
    const durationMs = audioDurationMs(extension, bytes);
    if (durationMs === 0) throw new UsageError(`${path}: holds no audio`);
    if (durationMs !== undefined && durationMs <= LIMITS.transcription.fileMaxDurationMs) {
      const result = await ctx.service.transcription.transcribe(
        {
          file: { name: basename(path), bytes },
          model,
          ...(language ? { language } : {}),
          ...(options.prompt ? { prompt: options.prompt } : {}),
        },
        { signal: options.signal },
      );
      const chunk = { startMs: 0, endMs: Math.round(durationMs), status: 'ok' as const, text: result.text };
      return { text: result.text, parts: [result.text], chunks: [chunk], complete: true };
    }
  }
  const probe = await probeAudioFile(path);
  ctx.logger.info('transcribe.converting', { file: path, reason: 'not a WAV/MP3 within 30 s and 10 MB' });
  const long = probe.durationMs === undefined || probe.durationMs > PROGRESS_FROM_MS;
  const progress = long ? transcribeProgress(process.stderr, probe.durationMs, () => performance.now()) : undefined;
  let soFar: readonly ChunkResult[] = [];
  try {
    return await transcribeChunks(
      cutAsItArrives(decodeStream(path, RATE_HZ), RATE_HZ),
      RATE_HZ,
      async (wav, prompt, signal) => {
        const result = await ctx.service.transcription.transcribe(
          {
            file: { name: 'chunk.wav', bytes: wav },
            model,
            ...(language ? { language } : {}),
            ...((prompt ?? options.prompt) ? { prompt: prompt ?? options.prompt } : {}),
          },
          { signal },
        );
        return result.text;
      },
      {
        durationMs: probe.durationMs,
        signal: options.signal,
        onChunk: (_chunk, all) => {
          soFar = all;
          progress?.chunk(all);
        },
      },
    );
  } catch (error) {
    if (!options.signal?.aborted || soFar.length === 0) throw error;
    return stoppedEarly(soFar, probe.durationMs);
  } finally {
    progress?.end();
  }
}

/** The transcript as printed with --json: every chunk with its time range and what became of it. */
function asJson(result: LongTranscript): object {
  return {
    text: result.text,
    complete: result.complete,
    parts: result.parts,
    chunks: result.chunks.map((chunk) => ({
      from: timecode(chunk.startMs),
      to: chunk.endMs === undefined ? null : timecode(chunk.endMs),
      ...chunk,
    })),
  };
}

export function registerTranscribe(program: Command, globals: () => GlobalOptions): void {
  program
    .command('transcribe')
    .description('transcribe an audio file of any format and length')
    .argument('<file>', 'audio file (anything ffmpeg reads)')
    .option('--language <code>', 'main spoken language, e.g. en or zh')
    .option('--prompt <text>', 'context for the first chunk (under 60 characters)')
    .option('--json', 'print {text, complete, parts, chunks: [{from, to, status, text|error}]} as JSON')
    .action(async (file: string, options: TranscribeOptions) => {
      // undici parses HTTP in WebAssembly, and V8's optimising compiler costs some 20 to 30 MB of
      // resident memory to compile that parser; its baseline compiler is plenty for one upload a
      // chunk, and a long transcription has to fit a 1 GB Pi (npm run bench -- transcribe-memory).
      setFlagsFromString('--liftoff-only');
      const problem = options.language === undefined ? undefined : languageProblem(options.language);
      if (problem) throw new UsageError(`--language: ${problem}`);
      await withContext(globals(), 'stderr', async (ctx) => {
        // Ctrl-C (or SIGTERM) ends a long transcription with what was transcribed so far printed, not lost.
        const { result, stopped } = await interruptible(async (signal) => {
          const result = await transcribeFile(ctx, file, { ...options, signal });
          return { result, stopped: signal.aborted && !result.complete };
        });
        const printed = options.json ? JSON.stringify(asJson(result), null, 2) : result.text;
        process.stdout.write(`${redact(printed)}\n`);
        if (stopped) {
          process.stderr.write('hark: stopped; what was transcribed is printed, the rest marked\n');
          process.exitCode = 130;
          return;
        }
        const missed = result.chunks.filter((chunk) => chunk.status !== 'ok');
        if (missed.length) {
          throw new Error(
            `${missed.length} of ${result.chunks.length} chunks not transcribed; what was is printed, with the gaps marked`,
          );
        }
      });
    });
}
