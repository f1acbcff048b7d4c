import type { Command } from 'commander';
import { concat, ignoreElements, lastValueFrom, takeUntil, tap } from 'rxjs';
import { servicePorts } from '../app/adapters/service-ports.js';
import { createPlayer } from '../app/compose/voice-loop.js';
import { PLAYBACK_FIX } from '../audio/playback-error.js';
import { VOICE_SAMPLE, configuredReference, describeVoice } from '../app/adapters/configured-voice.js';
import { withCheckedContext, type GlobalOptions } from './command-context.js';
import type { HarkConfig } from '../config/schema.js';
import { abortError, whenAborted } from '../system/abort.js';
import { checkOutputFile, checkWavName, keptBy } from './files.js';
import { interruptible } from './interrupt.js';

export function registerVoice(program: Command, globals: () => GlobalOptions): void {
  const voice = program.command('voice').description('the voice hark speaks with');
  voice
    .command('test')
    .description('say something in the configured voice (system voice, designed voice or clone) to hear it')
    .argument('[text...]', 'what to say')
    .option('-o, --output <file>', 'write it to a WAV instead of playing it')
    .action(async (words: string[], options: { output?: string }) => {
      // Ctrl-C (or SIGTERM) stops it; a file it was writing is removed, one there before is kept.
      const check = async (config: HarkConfig) => {
        if (!options.output) return;
        await checkOutputFile(options.output, keptBy(config));
        checkWavName(options.output);
      };
      await interruptible((stopped) =>
        withCheckedContext(globals(), 'stderr', check, async ({ config, service, logger }) => {
          const clone = await configuredReference(config, logger);
          // Stopped while it got ready: nothing is said, nothing written.
          if (stopped.aborted) throw abortError();
          const text = words.length ? words.join(' ') : VOICE_SAMPLE;
          process.stderr.write(`speaking with ${describeVoice(config, clone)}: "${text}"\n`);
          const player = createPlayer(config, { output: options.output, fast: Boolean(options.output) }, logger);
          const { synthesizer } = servicePorts(service, config, clone?.reference);
          try {
            const spoken = synthesizer.synthesize(text).pipe(tap((pcm) => player.write(pcm)));
            await lastValueFrom(
              concat(spoken, player.queuedBelow(0)).pipe(ignoreElements(), takeUntil(whenAborted(stopped))),
              { defaultValue: undefined },
            );
          } finally {
            await player.close(stopped.aborted);
          }
          if (stopped.aborted) throw abortError();
          // A player that failed has been logged; the command must not pretend it was heard.
          if (player.lastFailure) throw new Error(`playback failed: ${player.lastFailure}; ${PLAYBACK_FIX}`);
          if (options.output) process.stderr.write(`wrote ${options.output}\n`);
        }),
      );
    });
}
