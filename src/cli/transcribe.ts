import type { Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { decodeFileToPcm } from '../audio/ffmpeg.js';
import { samplesOf } from '../audio/pcm.js';
import { type CommandContext, withContext, type GlobalOptions } from './context.js';
import { audioDurationMs } from '../contract/rules/transcription.js';
import { LIMITS } from '../contract/limits.js';
import { transcribeLong } from '../listen/transcribe-long.js';

const RATE_HZ = 16000;

interface TranscribeOptions {
  language?: string;
  prompt?: string;
  json?: boolean;
}

/**
 * A WAV or MP3 within the limits is sent as it is; anything else is converted with ffmpeg
 * and, when longer than 30 s, cut at quiet points and sent in chunks.
 */
export async function transcribeFile(ctx: CommandContext, path: string, options: TranscribeOptions = {}) {
  const language = options.language ?? ctx.config.transcription.language ?? undefined;
  const model = ctx.config.transcription.model;
  const extension = extname(path).toLowerCase();
  const bytes = await readFile(path);
  const direct =
    (extension === '.wav' || extension === '.mp3') &&
    bytes.length <= LIMITS.transcription.fileMaxBytes &&
    (audioDurationMs(extension, bytes) ?? Infinity) <= LIMITS.transcription.fileMaxDurationMs;
  if (direct) {
    const result = await ctx.service.transcription.transcribe({
      file: { name: basename(path), bytes },
      model,
      ...(language ? { language } : {}),
      ...(options.prompt ? { prompt: options.prompt } : {}),
    });
    return { text: result.text, parts: [result.text] };
  }
  ctx.logger.info('transcribe.converting', { file: path, reason: 'not a WAV/MP3 within 30 s and 10 MB' });
  const samples = samplesOf(await decodeFileToPcm(path, RATE_HZ));
  return transcribeLong(samples, RATE_HZ, async (wav, prompt) => {
    const result = await ctx.service.transcription.transcribe({
      file: { name: 'chunk.wav', bytes: wav },
      model,
      ...(language ? { language } : {}),
      ...((prompt ?? options.prompt) ? { prompt: prompt ?? options.prompt } : {}),
    });
    return result.text;
  });
}

export function registerTranscribe(program: Command, globals: () => GlobalOptions): void {
  program
    .command('transcribe')
    .description('transcribe an audio file of any format and length')
    .argument('<file>', 'audio file (anything ffmpeg reads)')
    .option('--language <code>', 'main spoken language, e.g. en or zh')
    .option('--prompt <text>', 'context for the first chunk (under 60 characters)')
    .option('--json', 'print {text, parts} as JSON')
    .action(async (file: string, options: TranscribeOptions) => {
      await withContext(globals(), 'stderr', async (ctx) => {
        const result = await transcribeFile(ctx, file, options);
        process.stdout.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : `${result.text}\n`);
      });
    });
}
