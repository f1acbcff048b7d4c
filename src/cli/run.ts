import type { Command } from 'commander';
import { runDaemon } from '../app/daemon.js';
import { withContext, type GlobalOptions } from './context.js';

interface RunOptions {
  input?: string;
  output?: string;
  fast?: boolean;
}

export function registerRun(program: Command, globals: () => GlobalOptions): void {
  program
    .command('run')
    .description('the voice loop: listen, answer, speak (the daemon; `npm start`)')
    .option('-i, --input <file>', 'listen to an audio file (any format) instead of the microphone')
    .option('-o, --output <file>', 'write what would be played to a WAV instead of playing it')
    .option('--fast', 'take the input file as fast as possible (turns queue; no barge-in)')
    .action(async (options: RunOptions) => {
      await withContext(globals(), 'stdout', ({ config, service, logger }) =>
        runDaemon(config, service, logger, options),
      );
    });
}
