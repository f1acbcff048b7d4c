import type { ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { realClock, type Clock } from '../system/clock.js';
import type { Logger } from '../system/logger.js';
import { forkChild } from '../system/spawn.js';
import { endAndWait, lastWords } from './child-process.js';
import { PLAYBACK_FIX } from './playback-error.js';
import { ClockedPlayer } from './player.js';
import { QUICK_DEATH_MS, Restarts } from './restarts.js';

/** The speaker host drains ALSA's fixed 0.5 s buffer before it exits. */
const DRAIN_GRACE_MS = 800;
/**
 * After a stop, hark's voice may go on this long, and the echo reference keeps it: the piece
 * the module is writing (11 ms) and what the sound server had mixed already. Measured through
 * PulseAudio's ALSA plugin with ALSA's buffer full, against when the player was paused: 0 to 5 ms
 * or 125 to 130 ms later (test/audio/player-timing.test.ts, 23 runs of 30 November, 9 late: the sink
 * mixing in 10 ms periods, or in longer ones as the 0.5 s the module's stream allows lets it);
 * pacat's stream stops at once. Keeping hark's voice there too long costs the user's first
 * moments after a pause little; too short, and hark's own voice is taken for the user's.
 */
const STOP_TAIL_MS = 140;
/** A host not ready by then is played to as it is, rather than hold a reply up any longer. */
const READY_TIMEOUT_MS = 3000;

export const SPEAKER_HOST = join(PACKAGE_ROOT, 'dist', 'audio', 'speaker-host.js');
/** The host's exit status when the `speaker` module cannot be loaded at all. */
export const SPEAKER_UNAVAILABLE = 3;
export const SPEAKER_INSTALL_HINT =
  'install it where it builds (x86-64, 32-bit ARM: sudo apt install libasound2-dev build-essential python3; sudo npm install -g speaker), or set audio.player: auto';

/** Whether the host will find a `speaker` module (resolved only: loading it opens ALSA). */
export function speakerInstalled(): boolean {
  try {
    createRequire(SPEAKER_HOST).resolve('speaker');
    return true;
  } catch {
    return false;
  }
}

/** One line saying why a speaker host died, from its exit and its stderr. */
export function speakerDeath(code: number | null, signal: NodeJS.Signals | null, stderr: string): string {
  const words = lastWords(stderr);
  if (signal === 'SIGABRT') return `no usable audio output device${words ? ` (${words})` : ''}`;
  return `the speaker host exited with ${code ?? signal}${words ? `: ${words}` : ''}`;
}

/**
 * Plays through the `speaker` package hosted in a child process, started with the player so
 * that the first reply does not wait for it. Until a host is ready, what is written waits on
 * the player's clock (a host took 126-160 ms here to load the module, which the echo reference
 * must not count as played). If the host dies (no device, device unplugged), the daemon logs it,
 * drops that audio, and starts a new host on a later write after a backoff.
 */
export class SpeakerPlayer extends ClockedPlayer {
  private host: ChildProcess | undefined;
  private epoch = 0;
  private readonly restarts: Restarts;
  /** Set when the module cannot load: no new host is started, and the reason was logged once. */
  private unavailable = false;
  /** Settles once the latest host is ready to play, or never will be. */
  private ready: Promise<void> = Promise.resolve();

  constructor(
    sampleRateHz: number,
    private readonly device: string | null,
    private readonly logger: Logger,
    time: Clock = realClock,
    /** A stand-in for the `speaker` module (tests). */
    private readonly module?: string,
  ) {
    super(sampleRateHz, time);
    this.stopTailMs = STOP_TAIL_MS;
    this.restarts = new Restarts(time);
    this.start();
  }

  override get destination(): string {
    return 'speaker';
  }

  override write(pcm: Buffer): number {
    if (!this.host) this.start();
    return super.write(pcm);
  }

  protected override notPlaying(): string | undefined {
    return this.host === undefined && (this.unavailable || this.restarts.waitMs() > 0) ? this.lastFailure : undefined;
  }

  protected output(pcm: Buffer): void {
    const host = this.host;
    if (!host?.stdin?.writable) return;
    const header = Buffer.alloc(8);
    header.writeUInt32LE(this.epoch, 0);
    header.writeUInt32LE(pcm.length, 4);
    host.stdin.write(header);
    host.stdin.write(pcm);
  }

  protected discard(): void {
    this.epoch++;
    if (this.host?.connected) this.host.send({ type: 'stop', epoch: this.epoch });
  }

  async close(): Promise<void> {
    // What waited for the host is handed to it first, or it would end before hearing it.
    await this.ready;
    const host = this.host;
    this.host = undefined;
    if (host) await endAndWait(host, this.queuedMs() + DRAIN_GRACE_MS, this.time.scheduler);
  }

  private start(): void {
    if (this.unavailable || this.restarts.waitMs() > 0) return;
    const args = [String(this.sampleRateHz), this.device ?? '', ...(this.module ? [this.module] : [])];
    const host = forkChild(SPEAKER_HOST, args, { stdio: ['pipe', 'ignore', 'pipe', 'ipc'], execArgv: [] });
    const startedAt = this.time.now();
    // What it is given from here on is lost if it dies at once; one that ran a while played until it died.
    const from = this.clock.playedSamples();
    this.opening();
    let settle = (): void => undefined;
    this.ready = new Promise((resolve) => (settle = resolve));
    let settled = false;
    const playOn = (): void => {
      if (settled) return;
      settled = true;
      late.unsubscribe();
      // A host outlived by a newer one (ended by `close`, then a write) leaves that one's start alone.
      if (this.host === host || this.host === undefined) this.opened();
      settle();
    };
    const late = this.time.scheduler.schedule(() => {
      this.logger.warn('player.slow_start', { player: 'speaker', waitedMs: READY_TIMEOUT_MS });
      playOn();
    }, READY_TIMEOUT_MS);
    let stderr = '';
    host.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-800)));
    host.stdin?.on('error', () => undefined);
    host.on('message', (message: { type: string; message?: string }) => {
      if (message.type === 'ready') {
        this.restarts.working();
        playOn();
      }
      if (message.type === 'error') this.logger.warn('player.device_error', { error: message.message });
    });
    host.on('exit', (code, signal) => {
      if (this.host === host) this.host = undefined;
      playOn();
      if (code === 0 || signal === 'SIGKILL') return;
      if (code === SPEAKER_UNAVAILABLE) {
        this.unavailable = true;
        this.failed(lastWords(stderr) || 'the speaker module is not installed', from);
        this.logger.error('player.unavailable', {
          player: 'speaker',
          error: this.lastFailure,
          fix: SPEAKER_INSTALL_HINT,
        });
        return;
      }
      const atOnce = this.time.now() - startedAt < QUICK_DEATH_MS;
      const retryInMs = this.restarts.failed(startedAt);
      this.failed(speakerDeath(code, signal, stderr), atOnce ? from : this.clock.playedSamples());
      this.logger.error('player.host_exited', {
        code,
        signal,
        error: this.lastFailure,
        retryInMs,
        fix: PLAYBACK_FIX,
      });
    });
    this.host = host;
  }
}
