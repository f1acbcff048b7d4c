import type { Command } from 'commander';
import { runDaemon } from '../app/compose/daemon.js';
import type { HarkConfig } from '../config/schema.js';
import { UsageError, withCheckedContext, type GlobalOptions } from './command-context.js';
import { keepRunningWithoutOutput } from './closed-output.js';
import { checkAudioInput, checkOutputFile, checkWavName, keptBy } from './files.js';

interface RunOptions {
  input?: string;
  output?: string;
  fast?: boolean;
  web?: boolean;
}

export function registerRun(program: Command, globals: () => GlobalOptions): void {
  program
    .command('run')
    .description('the voice loop: listen, answer, speak (the daemon; `npm start`)')
    .option('-i, --input <file>', 'listen to an audio file (any format) instead of the microphone')
    .option('-o, --output <file>', 'write what would be played to a WAV instead of playing it')
    .option('--fast', 'take the input file as fast as possible (turns queue; no barge-in)')
    .option(
      '--web',
      'serve the status page (web.listen) for an input file too, and keep it up after the input ends, until Ctrl-C',
    )
    .action(async (options: RunOptions) => {
      keepRunningWithoutOutput();
      if (options.fast && !options.input) throw new UsageError('--fast reads an input file: give it with --input');
      if (options.input) await checkAudioInput(options.input);
      const check = async (config: HarkConfig) => {
        if (!options.output) return;
        await checkOutputFile(options.output, keptBy(config, options.input));
        checkWavName(options.output);
      };
      await withCheckedContext(globals(), 'stdout', check, async (context) => {
        await runDaemon(context, options);
      });
    });
}
