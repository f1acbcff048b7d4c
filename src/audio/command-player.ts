import type { ChildProcess } from 'node:child_process';
import type { Subscription } from 'rxjs';
import { realClock, type Clock } from '../system/clock.js';
import type { Logger } from '../system/logger.js';
import { spawnChild } from '../system/spawn.js';
import { endAndWait, lastWords } from './child-process.js';
import { PLAYBACK_FIX } from './playback-error.js';
import { PLAYER_BUFFER, PlayerBuffer, playerSaid, starved } from './player-buffer.js';
import { ClockedPlayer } from './player.js';
import { QUICK_DEATH_MS, Restarts } from './restarts.js';

/** Splits a command line into words (single and double quotes group), filling in `{rate}` and `{bufferMs}`. */
export function commandWords(template: string, sampleRateHz: number, bufferMs = PLAYER_BUFFER.startMs): string[] {
  const words = template.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  return words.map((w) =>
    w
      .replace(/^["']|["']$/g, '')
      .replaceAll('{rate}', String(sampleRateHz))
      .replaceAll('{bufferMs}', String(bufferMs)),
  );
}

/** A player that ran dry, or just started, and has not said it plays is taken to play after this, ms. */
const MOST_QUIET_MS = 500;
/**
 * A verbose pacat left with nothing to play is ended after this long, ms: it says how it is doing
 * about 38 times a second for as long as it lives, which cost hark's main thread 5 to 8 ms of
 * CPU a second (on the build machine) though nothing plays. A follow-up within it finds the
 * player ready.
 */
export const IDLE_END_MS = 10_000;
/** How long past its queued audio a closing player may take to finish. */
const DRAIN_GRACE_MS = 500;

/**
 * Plays through a command that reads raw PCM on stdin (aplay, pacat, pw-play). Stopping
 * kills the process, which silences it at once; the next write starts a new one, and a pause
 * starts it at once, ready for the resume. A command that fails is started again on a later
 * write, after a wait that grows while it keeps failing (see Restarts); what is written
 * meanwhile is reported as failed, not played. A command that says it ran dry while it had
 * plenty to play is logged, and the next one started with a longer buffer (see PlayerBuffer).
 * A process that says when it plays (pacat --verbose) is waited for: hark's clock counts nothing
 * as played from a new one, or from one that ran dry, until it says it plays; it is ended when it
 * has had nothing to play for IDLE_END_MS.
 */
export class CommandPlayer extends ClockedPlayer {
  private child: ChildProcess | undefined;
  private readonly words: string[];
  private readonly restarts: Restarts;
  private readonly buffer = new PlayerBuffer();
  /** A process says "Stream started." when it plays (pacat --verbose, or one heard to say so): each is waited for. */
  private saysWhenItPlays: boolean;
  private idle: Subscription | undefined;
  /** Processes ended for being idle. */
  private readonly retired = new WeakSet<ChildProcess>();

  constructor(
    private readonly template: string,
    sampleRateHz: number,
    private readonly logger: Logger,
    time: Clock = realClock,
    /** Starts the command (tests stand in for it). */
    private readonly spawn: typeof spawnChild = spawnChild,
  ) {
    super(sampleRateHz, time);
    this.words = commandWords(template, sampleRateHz);
    if (this.words.length === 0) throw new Error('audio.playerCommand is empty');
    this.saysWhenItPlays = this.program === 'pacat' && this.words.some((w) => w === '--verbose' || w === '-v');
    this.restarts = new Restarts(time);
  }

  /** The program that plays (pw-play, pacat, aplay, ...), for choosing the mixer that matches it. */
  get program(): string {
    return (this.words[0] ?? '').split('/').pop() ?? '';
  }

  override get destination(): string {
    return this.program;
  }

  override write(written: Buffer): number {
    // Started here, before the clock counts what is written as sounding: a new process says when it plays.
    if (!this.child && written.length > 0 && !this.paused && this.start() && this.saysWhenItPlays)
      this.quietUntilItPlays(MOST_QUIET_MS);
    const end = super.write(written);
    if (this.child) this.endWhenIdle();
    return end;
  }

  protected output(pcm: Buffer): void {
    const child = this.child ?? this.start();
    child?.stdin?.write(pcm);
  }

  protected override release(unplayed: Buffer): void {
    super.release(unplayed);
    if (this.child) this.endWhenIdle();
  }

  protected override notPlaying(): string | undefined {
    return this.child === undefined && this.restarts.waitMs() > 0 ? this.lastFailure : undefined;
  }

  protected discard(): void {
    this.idle?.unsubscribe();
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
    this.idle?.unsubscribe();
    this.stopWaiting();
    const child = this.child;
    this.child = undefined;
    if (child) await endAndWait(child, this.queuedMs() + DRAIN_GRACE_MS, this.time.scheduler);
  }

  /**
   * Ends a chattering process (pacat --verbose) once it has had nothing to play for IDLE_END_MS;
   * the next write starts another. One that keeps quiet is kept: it costs nothing while idle,
   * and closing a sound card directly (aplay) can be heard as a click on some.
   */
  private endWhenIdle(): void {
    if (!this.saysWhenItPlays) return;
    this.idle?.unsubscribe();
    this.idle = this.time.scheduler.schedule(() => {
      if (this.paused || this.queuedMs() > 0) return this.endWhenIdle();
      const child = this.child;
      this.child = undefined;
      if (!child) return;
      // It has played all it had: how it ends is no failure of what plays next.
      this.retired.add(child);
      child.stderr?.removeAllListeners('data');
      void endAndWait(child, DRAIN_GRACE_MS, this.time.scheduler);
    }, this.queuedMs() + IDLE_END_MS);
  }

  /** A new process, unless one failed too lately to start another yet. */
  private start(): ChildProcess | undefined {
    if (this.restarts.waitMs() > 0) return undefined;
    const [command, ...args] = commandWords(this.template, this.sampleRateHz, this.buffer.ms) as [string, ...string[]];
    // In C, so that what it says of its playing is in the words hark reads.
    const child = this.spawn(command, args, { stdio: ['pipe', 'ignore', 'pipe'], env: { LC_ALL: 'C' } });
    const startedAt = this.time.now();
    // What it is given from here on is lost if it fails at once; one that ran a while played until it failed.
    const from = this.clock.playedSamples();
    let stderr = '';
    let failed = false;
    const fail = (why: string, fields: Record<string, unknown>): void => {
      if (this.child === child) this.child = undefined;
      if (failed) return;
      failed = true;
      const atOnce = this.time.now() - startedAt < QUICK_DEATH_MS;
      const retryInMs = this.restarts.failed(startedAt);
      this.failed(why, atOnce ? from : this.clock.playedSamples());
      this.logger.error('player.failed', { command, ...fields, error: why, retryInMs, fix: PLAYBACK_FIX });
    };
    let starvedBefore = false;
    // What came after the last line break: the start of a line the next chunk ends.
    let partial = '';
    child.stderr?.on('data', (d: Buffer) => {
      const text = partial + d.toString();
      const cut = Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) + 1;
      partial = text.slice(cut).slice(-500);
      const said = playerSaid(text.slice(0, cut));
      stderr = (stderr + said.rest).slice(-500);
      for (const news of this.child === child ? said.news : []) {
        const queuedMs = this.clock.queuedMs();
        if (news === 'plays') {
          if (!this.saysWhenItPlays) {
            this.saysWhenItPlays = true;
            this.endWhenIdle();
          }
          this.plays();
        } else if (starved(queuedMs)) {
          // Only a player that says when it plays (pacat) says when it plays on after running dry.
          if (this.saysWhenItPlays) this.quietUntilItPlays(MOST_QUIET_MS);
          // Logged and grown once per process: the buffer it was started with is all it has.
          if (starvedBefore) continue;
          starvedBefore = true;
          const bufferMs = this.buffer.ms;
          const nextBufferMs = this.template.includes('{bufferMs}') ? this.buffer.grow() : undefined;
          this.logger.warn('player.underrun', { command, queuedMs: Math.round(queuedMs), bufferMs, nextBufferMs });
        }
      }
    });
    child.stdin?.on('error', () => undefined);
    child.on('error', (error) => fail(`${command}: ${error.message}`, {}));
    child.on('close', (code, signal) => {
      if (this.child === child) this.child = undefined;
      if (code === 0 || signal === 'SIGKILL' || this.retired.has(child)) return;
      const why = lastWords(stderr + playerSaid(partial).rest);
      fail(`${command} exited with ${code ?? signal}${why ? `: ${why}` : ''}`, { code, signal });
    });
    this.child = child;
    return child;
  }
}
