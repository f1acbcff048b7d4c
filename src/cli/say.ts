import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { writeWavFile } from '../audio/wav-file.js';
import type { HarkConfig } from '../config/schema.js';
import { LIMITS, type SpeechResponseFormat } from '../contract/limits.js';
import { configuredReference, speechRequest } from '../app/adapters/configured-voice.js';
import { writeAtomically } from '../system/atomic-file.js';
import { UsageError, parseNumber, withCheckedContext, type GlobalOptions } from './command-context.js';
import { checkOutputFile, keptBy } from './files.js';
import { interruptible } from './interrupt.js';

interface SayOptions {
  output: string;
  voice?: string;
  instructions?: string;
  sampleRate?: number;
  speed?: number;
  volume?: number;
  pitch?: number;
}

const FORMATS: Record<string, SpeechResponseFormat> = { '.mp3': 'mp3', '.opus': 'opus', '.aac': 'aac', '.pcm': 'pcm' };

export function registerSay(program: Command, globals: () => GlobalOptions): void {
  program
    .command('say')
    .description('synthesize speech into a file (.wav streams PCM; .mp3 .opus .aac .pcm ask for that format)')
    .argument('<text...>', 'what to say (at most 2048 characters)')
    .requiredOption('-o, --output <file>', 'where to write the audio')
    .option('--voice <name>', 'a system voice')
    .option('--instructions <text>', 'a voice-style description (designed voice)')
    .option('--sample-rate <hz>', 'one of 8000, 16000, 22050, 24000', parseNumber('--sample-rate', 8000, 24000))
    .option('--speed <x>', '0.25 to 4', parseNumber('--speed', 0.25, 4))
    .option('--volume <x>', '0.5 to 2', parseNumber('--volume', 0.5, 2))
    .option('--pitch <x>', '0.5 to 2', parseNumber('--pitch', 0.5, 2))
    .action(async (words: string[], options: SayOptions) => {
      const extension = extname(options.output).toLowerCase();
      if (extension !== '.wav' && !FORMATS[extension]) {
        throw new UsageError(`-o ${options.output}: use .wav, .mp3, .opus, .aac or .pcm`);
      }
      if (!words.join('').trim()) throw new UsageError('nothing to say: the text is empty');
      // Ctrl-C stops the synthesis, and the file it was writing is removed (writeAtomically).
      const check = (config: HarkConfig) => checkOutputFile(options.output, keptBy(config));
      await interruptible((signal) =>
        withCheckedContext(globals(), 'stderr', check, async ({ config, service, logger }) => {
          const speech = {
            ...config.speech,
            ...(options.voice ? { voice: options.voice } : {}),
            ...(options.instructions ? { instructions: options.instructions } : {}),
            ...(options.sampleRate ? { sampleRateHz: options.sampleRate as HarkConfig['speech']['sampleRateHz'] } : {}),
            ...(options.speed ? { speed: options.speed } : {}),
            ...(options.volume ? { volume: options.volume } : {}),
            ...(options.pitch ? { pitch: options.pitch } : {}),
          };
          // An explicit --voice wins over a configured clone.
          const clone = options.voice ? undefined : await configuredReference(config, logger);
          const request = speechRequest(words.join(' '), speech, clone?.reference);
          const sampleRateHz = request.sample_rate ?? LIMITS.speech.defaultSampleRateHz;
          // Either way the file appears under its name only when complete: a failure never leaves a cut or wrong file.
          if (extension === '.wav') {
            const stream = service.speech.streamSse({ ...request, response_format: 'pcm' }, { signal });
            const pcm = (async function* () {
              for await (const event of stream) if (event.type === 'audio') yield event.audio;
            })();
            const bytes = await writeWavFile(options.output, sampleRateHz, pcm);
            logger.info('say.written', { file: options.output, seconds: bytes / 2 / sampleRateHz });
          } else {
            // The client refuses a response whose Content-Type is not the requested format (a web page, say).
            const { audio } = await service.speech.synthesize(
              { ...request, response_format: FORMATS[extension] },
              { signal },
            );
            await writeAtomically(options.output, (partial) => writeFile(partial, audio));
          }
          process.stderr.write(`wrote ${options.output}\n`);
        }),
      );
    });
}
