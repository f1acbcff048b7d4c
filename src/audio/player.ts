import { Subject, defer, of, switchMap, timer, type Observable, type Subscription } from 'rxjs';
import { realClock, type Clock } from '../system/clock.js';
import { samplesOf } from './pcm.js';
import { PlaybackClock } from './playback-clock.js';
import { PlaybackError } from './playback-error.js';

/** Told what will sound and when (e.g. the echo canceller's reference): a player's own account of its output. */
export interface PlaybackListener {
  /** `samples` at `rateHz` will sound from `startMs` on (the clock's time). */
  write(samples: Int16Array, rateHz: number, startMs: number): void;
  /** Nothing written will sound from `atMs` on. */
  drop(atMs: number): void;
}

/**
 * A player on its own clock: audio is queued, and the clock says how much has been played,
 * which is how hark knows what part of a reply the user heard. Subclasses hand the PCM to a
 * device, a process or a file.
 */
export abstract class ClockedPlayer {
  protected readonly clock: PlaybackClock;
  /** What was written and not yet played, by where it starts on the timeline: what a pause keeps. */
  private unplayed: { start: number; pcm: Buffer }[] = [];
  private readonly listeners: PlaybackListener[] = [];
  private pausedByUser = false;
  /** The device is being opened: nothing sounds yet, so the clock waits for it. */
  private deviceOpening = false;
  /** The device has audio but does not play yet (it ran dry, or is just starting): the clock waits for it. */
  private quiet: Subscription | undefined;
  /** Why playback last failed (a player that could not start, exited with an error, or died), if it did. */
  private failure: string | undefined;
  /** How many times playback has failed: a new failure in the same words counts too. */
  timesFailed = 0;
  private readonly failures$ = new Subject<PlaybackError>();
  /** Each failure as it happens, saying which audio it cost: nothing written there sounded. */
  readonly failures: Observable<PlaybackError> = this.failures$.asObservable();
  /** hark's own output level, 0..1, applied to what is written from now on (the volume when no mixer can be used). */
  gain = 1;
  /** How long the device goes on sounding after a stop or a pause: what it had handed on already, ms. */
  protected stopTailMs = 0;

  constructor(
    readonly sampleRateHz: number,
    protected readonly time: Clock = realClock,
    /** Played as soon as written (a file written as fast as possible). */
    instant = false,
  ) {
    this.clock = new PlaybackClock(sampleRateHz, instant, () => time.now());
  }

  /** Where the sound goes, as the user would name it: the player program, `speaker`, a file. */
  get destination(): string {
    return 'a player';
  }

  get lastFailure(): string | undefined {
    return this.failure;
  }

  /** Tells `listener` everything that will sound and when, from now on. */
  listen(listener: PlaybackListener): void {
    this.listeners.push(listener);
  }

  write(written: Buffer): number {
    const start = this.clock.writtenSamples();
    if (written.length === 0) return start;
    const pcm = this.gain === 1 ? written : scaled(written, this.gain);
    this.forgetPlayed();
    this.unplayed.push({ start, pcm });
    if (!this.clock.isHeld || this.quiet) {
      const down = this.notPlaying();
      if (down !== undefined) {
        this.failed(down, start, start + pcm.length / 2);
      } else {
        // A quiet device has it all the sooner; its listeners are told when it plays.
        if (!this.quiet) this.tell(pcm, this.time.now() + this.clock.queuedMs());
        this.output(pcm);
      }
    }
    return this.clock.write(pcm.length / 2);
  }

  /**
   * Holds playback at once, keeping every unplayed sample: nothing is heard until `resume`, and
   * what is written meanwhile waits behind it.
   */
  pause(): void {
    if (this.pausedByUser) return;
    this.pausedByUser = true;
    this.noLongerQuiet();
    // A device still opening has played nothing, and its clock already waits.
    if (this.deviceOpening) return;
    this.clock.hold();
    this.hold();
    this.silenced();
  }

  /** Plays on from exactly where `pause` held it. */
  resume(): void {
    if (!this.pausedByUser) return;
    this.pausedByUser = false;
    if (!this.deviceOpening) this.playHeld();
  }

  get paused(): boolean {
    return this.pausedByUser;
  }

  playedSamples(): number {
    return this.clock.playedSamples();
  }

  writtenSamples(): number {
    return this.clock.writtenSamples();
  }

  queuedMs(): number {
    return this.clock.queuedMs();
  }

  queuedBelow(ms: number): Observable<void> {
    return defer(() => {
      const queued = this.clock.queuedMs();
      if (queued <= ms) return of(undefined);
      return timer(Math.max(1, Math.ceil(queued - ms)), this.time.scheduler).pipe(
        switchMap(() => this.queuedBelow(ms)),
      );
    });
  }

  stop(): void {
    this.noLongerQuiet();
    this.clock.drop();
    this.pausedByUser = false;
    if (!this.deviceOpening) this.clock.release();
    this.unplayed = [];
    this.discard();
    this.silenced();
  }

  /** Ends playback and releases the device; `failed`: the run failed, and what it wrote need not be kept. */
  abstract close(failed?: boolean): Promise<void>;
  /** Hands PCM to the device, process or file. */
  protected abstract output(pcm: Buffer): void;

  /**
   * Playback failed, for this reason, and what was written from `fromSample` to `toSample` will
   * not sound (by default: all that was not played yet).
   */
  protected failed(why: string, fromSample = this.clock.playedSamples(), toSample = this.clock.writtenSamples()): void {
    // A device that failed will never say it plays: what it held is reported lost, not told.
    this.stopWaiting();
    this.failure = why;
    this.timesFailed++;
    this.failures$.next(new PlaybackError(why, fromSample, toSample));
  }

  /**
   * Why what is written now would not sound (a player waiting to start again after failing),
   * if it would not: it is then not handed on, and reported as failed.
   */
  protected notPlaying(): string | undefined {
    return undefined;
  }
  /** Throws away whatever the device, process or file has not played yet. */
  protected abstract discard(): void;

  /**
   * The device is being opened (a player process starting): what is written waits, neither
   * heard nor told to listeners, so that what they are told sounds when they are told it does.
   */
  protected opening(): void {
    if (this.deviceOpening) return;
    this.deviceOpening = true;
    this.noLongerQuiet();
    // Paused, it is held and its listeners told already.
    if (this.pausedByUser) return;
    this.clock.hold();
    this.silenced();
  }

  /** The device is open, or will never be: what waited plays now (to nowhere, on a dead device). */
  protected opened(): void {
    if (!this.deviceOpening) return;
    this.deviceOpening = false;
    if (!this.pausedByUser) this.playHeld();
  }

  /**
   * The device has audio and will say when it plays it (a process just started, or one that ran
   * dry because it was not woken in time): nothing sounds until it says so, from where it
   * stopped, or until `mostMs` have passed. What is written meanwhile is handed to it at once.
   */
  protected quietUntilItPlays(mostMs: number): void {
    if (this.quiet || this.pausedByUser || this.deviceOpening || this.clock.isHeld) return;
    this.clock.hold();
    this.silenced();
    this.quiet = this.time.scheduler.schedule(() => this.plays(), mostMs);
  }

  /** The device says it plays (or has been waited for long enough): what it holds sounds from now. */
  protected plays(): void {
    if (!this.quiet) return;
    this.noLongerQuiet();
    const { unplayed } = this.heldBack();
    this.clock.release();
    // A player that failed meanwhile plays none of it (the failure said which audio).
    if (this.notPlaying() === undefined) this.tell(unplayed, this.time.now());
  }

  /** No longer waits for a quiet device, telling its listeners nothing (it failed, or is closed). */
  protected stopWaiting(): void {
    if (!this.quiet) return;
    this.noLongerQuiet();
    this.clock.release();
  }

  /** Silences the device at once for a pause; by default, by throwing its buffer away (the player keeps a copy). */
  protected hold(): void {
    this.discard();
  }

  /** Hands the device what a pause held back. */
  protected release(unplayed: Buffer): void {
    if (unplayed.length > 0) this.output(unplayed);
  }

  /** What was written and has not played, and the sample it starts at. */
  private heldBack(): { from: number; unplayed: Buffer } {
    this.forgetPlayed();
    const from = this.clock.playedSamples();
    const rest = this.unplayed.map(({ start, pcm }) => pcm.subarray(Math.max(0, from - start) * 2));
    return { from, unplayed: Buffer.concat(rest) };
  }

  private playHeld(): void {
    const { from, unplayed } = this.heldBack();
    this.clock.release();
    const down = this.notPlaying();
    if (down !== undefined) {
      if (unplayed.length >= 2) this.failed(down, from, from + unplayed.length / 2);
      return;
    }
    this.tell(unplayed, this.time.now());
    this.release(unplayed);
  }

  /** No longer waiting for a quiet device (it plays, or is stopped). */
  private noLongerQuiet(): void {
    this.quiet?.unsubscribe();
    this.quiet = undefined;
  }

  private tell(pcm: Buffer, startMs: number): void {
    if (pcm.length < 2) return;
    for (const listener of this.listeners) listener.write(samplesOf(pcm), this.sampleRateHz, startMs);
  }

  private silenced(): void {
    const silentFrom = this.time.now() + this.stopTailMs;
    for (const listener of this.listeners) listener.drop(silentFrom);
  }

  private forgetPlayed(): void {
    const played = this.clock.playedSamples();
    while (this.unplayed.length > 0) {
      const [head] = this.unplayed as [{ start: number; pcm: Buffer }];
      if (head.start + head.pcm.length / 2 > played) break;
      this.unplayed.shift();
    }
  }
}

function scaled(pcm: Buffer, gain: number): Buffer {
  const samples = samplesOf(pcm);
  const out = new Int16Array(samples.length);
  const g = Math.max(0, gain);
  for (let i = 0; i < samples.length; i++)
    out[i] = Math.max(-32768, Math.min(32767, Math.round((samples[i] as number) * g)));
  return Buffer.from(out.buffer);
}
