import type { ChildProcess } from 'node:child_process';
import { realClock, type Clock } from '../system/clock.js';
import type { Logger } from '../system/logger.js';
import { spawnChild } from '../system/spawn.js';
import { endAndWait, lastWords } from './child-process.js';
import { ClockedPlayer } from './player.js';

/** Splits a command line into words (single and double quotes group), filling in `{rate}`. */
export function commandWords(template: string, sampleRateHz: number): string[] {
  const words = template.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  return words.map((w) => w.replace(/^["']|["']$/g, '').replaceAll('{rate}', String(sampleRateHz)));
}

/** How long past its queued audio a closing player may take to finish. */
const DRAIN_GRACE_MS = 500;

/**
 * Plays through a command that reads raw PCM on stdin (aplay, pacat, pw-play). Stopping
 * kills the process, which silences it at once; the next write starts a new one, and a pause
 * starts it at once, ready for the resume.
 */
export class CommandPlayer extends ClockedPlayer {
  private child: ChildProcess | undefined;
  private readonly words: string[];

  constructor(
    template: string,
    sampleRateHz: number,
    private readonly logger: Logger,
    time: Clock = realClock,
  ) {
    super(sampleRateHz, time);
    this.words = commandWords(template, sampleRateHz);
    if (this.words.length === 0) throw new Error('audio.playerCommand is empty');
  }

  /** The program that plays (pw-play, pacat, aplay, ...), for choosing the mixer that matches it. */
  get program(): string {
    return (this.words[0] ?? '').split('/').pop() ?? '';
  }

  override get destination(): string {
    return this.program;
  }

  protected output(pcm: Buffer): void {
    const child = this.child ?? this.start();
    child.stdin?.write(pcm);
  }

  protected discard(): void {
    this.child?.kill('SIGKILL');
    this.child = undefined;
  }

  /**
   * A pause kills the command, which silences it at once, and starts the next one straight
   * away, so that a resume does not wait for it to start: pacat started on the resume sounded
   * 24-48 ms later than hark's clock said, which its echo canceller heard as a changed path.
   */
  protected override hold(): void {
    this.discard();
    this.start();
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (child) await endAndWait(child, this.queuedMs() + DRAIN_GRACE_MS, this.time.scheduler);
  }

  private start(): ChildProcess {
    const [command, ...args] = this.words as [string, ...string[]];
    const child = spawnChild(command, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-500)));
    child.stdin?.on('error', () => undefined);
    child.on('error', (error) => {
      this.failed(`${command}: ${error.message}`);
      this.logger.error('player.failed', { command, error: error.message });
    });
    child.on('close', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (code !== 0 && signal !== 'SIGKILL') {
        const why = lastWords(stderr);
        this.failed(`${command} exited with ${code ?? signal}${why ? `: ${why}` : ''}`);
        this.logger.error('player.exited', { command, code, signal, stderr: why });
      }
    });
    this.child = child;
    return child;
  }
}
