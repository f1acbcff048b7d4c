import type { Command } from 'commander';
import { SystemdNotifier } from '../system/sd-notify.js';
import { startVoiceLoop } from '../system/voice-daemon.js';
import { configuredReference } from '../voice/configured.js';
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
      await withContext(globals(), 'stdout', async ({ config, service, logger }) => {
        // The key is in memory now; no child process (recorder, player, ffmpeg) inherits it.
        delete process.env.HARK_API_KEY;
        delete process.env.CREDENTIALS_DIRECTORY;
        const systemd = new SystemdNotifier(logger);
        const clone = await configuredReference(config, logger);
        const loop = await startVoiceLoop(config, service, logger, { ...options, reference: clone?.reference });
        const state = loop.assistant.state$.subscribe((s) => systemd.status(s));
        systemd.ready('listening');
        let stopReason = 'input ended';
        const stop = (signal: NodeJS.Signals): void => {
          stopReason = signal;
          logger.info('hark.stopping', { signal });
          systemd.stopping(signal);
          void loop.stop();
        };
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        try {
          await loop.done;
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          state.unsubscribe();
          await loop.stop();
          logger.info('hark.stopped', { reason: stopReason });
        }
      });
    });
}
