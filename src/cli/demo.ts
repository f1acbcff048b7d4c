import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { readWavInfo } from '../audio/wav-header.js';
import type { HarkConfig } from '../config/schema.js';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { turnLatencies, type Turn } from '../dialog/turn.js';
import type { AssistantEvent } from '../pipeline/events.js';
import { startVoiceLoop } from '../app/compose/voice-loop.js';
import { describeVoice } from '../app/adapters/configured-voice.js';
import { startWebPage } from '../app/page/web-page.js';
import { withCheckedContext, type GlobalOptions } from './command-context.js';
import { checkOutputFile, checkWavName, keptBy } from './files.js';
import { keepRunningWithoutOutput } from './closed-output.js';
import { interruptible } from './interrupt.js';

const DEMO_INPUT = join(PACKAGE_ROOT, 'assets', 'demo', 'question.wav');
const DEMO_TRANSCRIPT = join(PACKAGE_ROOT, 'assets', 'demo', 'question.txt');

interface DemoOptions {
  output: string;
  web?: boolean;
}

/** What the demo is doing, one line per step, so the wait is never silent. */
export class DemoProgress {
  private lastSpeech = -1;
  private guessed: string | undefined;
  private ticking: NodeJS.Timeout | undefined;

  constructor(
    private readonly output: string,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  say(line: string): void {
    this.stopTicking();
    this.stream.write(`hark demo: ${line}\n`);
  }

  on(event: AssistantEvent): void {
    switch (event.type) {
      case 'speech':
        if (event.id === this.lastSpeech) return;
        this.lastSpeech = event.id;
        this.guessed = undefined;
        return this.say(`you are speaking (from ${(event.onsetMs / 1000).toFixed(1)} s into the recording) ...`);
      case 'utterance': {
        if (!event.utterance.final) return;
        const seconds = (event.utterance.samples.length / event.utterance.sampleRateHz).toFixed(1);
        return this.say(`you stopped: ${seconds} s of speech${this.guessed === undefined ? ', transcribing' : ''} ...`);
      }
      case 'retracted':
        this.guessed = undefined;
        return this.say('you went on: the guess and its reply are dropped ...');
      case 'query':
        if (event.query.transcript.tentative) {
          this.guessed = event.query.text;
          return this.say(
            `at a pause, heard "${event.query.text}": asking for the reply now, to sound once you have finished ...`,
          );
        }
        if (event.query.text === this.guessed)
          return this.say('you had finished: the reply already under way sounds ...');
        return this.say(`heard "${event.query.text}", waiting for the reply ...`);
      case 'state':
        if (event.state === 'speaking') this.speaking();
        return;
      case 'turn':
        return this.stopTicking();
      default:
        return;
    }
  }

  /** The reply is written in real time, as a speaker would play it: on a terminal, a clock shows it going. */
  private speaking(): void {
    const line = `hark is speaking, in real time, into ${basename(this.output)}`;
    if (!this.stream.isTTY) return this.say(`${line} ...`);
    this.stopTicking();
    const started = Date.now();
    const tick = (): void => {
      this.stream.write(`\rhark demo: ${line} ... ${Math.round((Date.now() - started) / 1000)} s`);
    };
    tick();
    this.ticking = setInterval(tick, 1000);
  }

  private stopTicking(): void {
    if (!this.ticking) return;
    clearInterval(this.ticking);
    this.ticking = undefined;
    this.stream.write('\n');
  }
}

function describeTurn(turn: Turn): string {
  const latency = Object.entries(turnLatencies(turn))
    .map(([step, ms]) => `${step} ${ms} ms`)
    .join(', ');
  return (
    `\nyou said:   ${turn.query.text}\n` +
    (turn.interrupted ? `hark said:  ${turn.heard || '(nothing yet)'} [cut short]\n` : `hark said:  ${turn.reply}\n`) +
    `${turn.failed ? `error:      ${turn.failed.message}\n` : ''}` +
    `tokens:     ${turn.usage ? `${turn.usage.inputTokens} in, ${turn.usage.outputTokens} out` : 'n/a'}\n` +
    `from the end of your speech: ${latency}\n`
  );
}

export function registerDemo(program: Command, globals: () => GlobalOptions): void {
  program
    .command('demo')
    .description('the whole voice loop on a bundled recording, against the built-in stand-in service')
    .option('-o, --output <file>', 'where to write the spoken reply', 'hark-demo-reply.wav')
    .option('--web', 'watch it on the status page (web.listen), which stays up after the turn until Ctrl-C')
    .action(async (options: DemoOptions) => {
      keepRunningWithoutOutput();
      const output = resolve(options.output);
      const progress = new DemoProgress(output);
      // What it was given is checked before anything starts; then the stand-in starts.
      const check = async (config: HarkConfig): Promise<void> => {
        await checkOutputFile(options.output, keptBy(config, DEMO_INPUT));
        checkWavName(options.output);
        progress.say('starting the stand-in service ...');
      };
      await withCheckedContext({ ...globals(), sim: true }, 'stderr', check, async (context) => {
        const { config, service, logger, sim } = context;
        // The stand-in cannot understand speech: it is told what the bundled recording says.
        sim?.script.transcript(readFileSync(DEMO_TRANSCRIPT, 'utf8').trim());
        const page = options.web ? await startWebPage(config, { ...context, voice: describeVoice(config) }) : undefined;
        if (page) progress.say(`the status page is at ${page.urls.join(' and ')}: open it now to watch the turn`);
        else if (options.web) progress.say('the status page could not start (see above); going on without it');
        // Ctrl-C (or SIGTERM) from here on ends the demo in order: the reply so far is in the file.
        const stoppedEarly = await interruptible(async (stopped) => {
          try {
            progress.say('starting the voice loop (the voice activity detector loads while it listens) ...');
            // The bundled recording asks its question without a wake word.
            const awake = { ...config, wake: { ...config.wake, engine: 'none' as const } };
            const loop = await startVoiceLoop(awake, service, logger, {
              input: DEMO_INPUT,
              output,
              metering: page?.watching,
              stayOpen: page !== undefined,
            });
            page?.attach(loop);
            const seconds = (readWavInfo(readFileSync(DEMO_INPUT)).durationMs / 1000).toFixed(1);
            progress.say(`listening to ${basename(DEMO_INPUT)} (${seconds} s, in real time) ...`);
            loop.events.subscribe({
              next: (event) => {
                progress.on(event);
                if (event.type === 'turn') process.stdout.write(describeTurn(event.turn));
              },
              // A failure ends loop.done, which reports it.
              error: () => undefined,
            });
            const stop = (): void => void loop.stop().catch(() => undefined);
            stopped.addEventListener('abort', stop, { once: true });
            if (stopped.aborted) stop();
            try {
              await loop.done;
              const cut = stopped.aborted;
              if (page && !cut) {
                page.inputEnded();
                progress.say(
                  `the status page stays up at ${page.urls[0] ?? ''} (try its voice test); Ctrl-C ends the demo`,
                );
                await new Promise<void>((resolve) =>
                  stopped.addEventListener('abort', () => resolve(), { once: true }),
                );
              }
              return cut;
            } finally {
              stopped.removeEventListener('abort', stop);
              await loop.stop();
            }
          } finally {
            await page?.stop();
          }
        });
        process.stdout.write(
          stoppedEarly ? `\nstopped: what was spoken is in ${output}\n` : `\nthe spoken reply is in ${output}\n`,
        );
      });
    });
}
