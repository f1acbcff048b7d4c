import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { turnLatencies } from '../dialog/turn.js';
import { startVoiceLoop } from '../app/voice-loop.js';
import { withContext, type GlobalOptions } from './context.js';

const DEMO_INPUT = join(PACKAGE_ROOT, 'assets', 'demo', 'question.wav');
const DEMO_TRANSCRIPT = join(PACKAGE_ROOT, 'assets', 'demo', 'question.txt');

interface DemoOptions {
  output: string;
}

export function registerDemo(program: Command, globals: () => GlobalOptions): void {
  program
    .command('demo')
    .description('the whole voice loop on a bundled recording, against the built-in stand-in service')
    .option('-o, --output <file>', 'where to write the spoken reply', 'hark-demo-reply.wav')
    .action(async (options: DemoOptions) => {
      const output = resolve(options.output);
      await withContext({ ...globals(), sim: true }, 'stderr', async ({ config, service, logger, sim }) => {
        // The stand-in cannot understand speech: it is told what the bundled recording says.
        sim?.script.transcript(readFileSync(DEMO_TRANSCRIPT, 'utf8').trim());
        process.stdout.write(`hark demo: listening to ${DEMO_INPUT} (in real time) ...\n`);
        // The bundled recording asks its question without a wake word.
        const awake = { ...config, wake: { ...config.wake, engine: 'none' as const } };
        const loop = await startVoiceLoop(awake, service, logger, { input: DEMO_INPUT, output });
        loop.events.subscribe((event) => {
          if (event.type !== 'turn') return;
          const turn = event.turn;
          const latency = Object.entries(turnLatencies(turn))
            .map(([step, ms]) => `${step} ${ms} ms`)
            .join(', ');
          process.stdout.write(
            `\nyou said:   ${turn.query.text}\n` +
              `hark said:  ${turn.reply}\n` +
              `${turn.failed ? `error:      ${turn.failed.message}\n` : ''}` +
              `tokens:     ${turn.usage ? `${turn.usage.inputTokens} in, ${turn.usage.outputTokens} out` : 'n/a'}\n` +
              `from the end of your speech: ${latency}\n`,
          );
        });
        await loop.done;
        await loop.stop();
        process.stdout.write(`\nthe spoken reply is in ${output}\n`);
      });
    });
}
