import { defer, of, switchMap, timer, type Observable } from 'rxjs';
import { realClock, type Clock } from '../system/clock.js';
import { PlaybackClock } from './playback-clock.js';

/**
 * A player on its own clock: audio is queued, and the clock says how much has been played,
 * which is how hark knows what part of a reply the user heard. Subclasses hand the PCM to a
 * device, a process or a file.
 */
export abstract class ClockedPlayer {
  protected readonly clock: PlaybackClock;
  /** Why playback last failed (a player that could not start, exited with an error, or died), if it did. */
  lastFailure: string | undefined;

  constructor(
    readonly sampleRateHz: number,
    protected readonly time: Clock = realClock,
    /** Played as soon as written (a file written as fast as possible). */
    instant = false,
  ) {
    this.clock = new PlaybackClock(sampleRateHz, instant, () => time.now());
  }

  write(pcm: Buffer): number {
    if (pcm.length === 0) return this.clock.writtenSamples();
    this.output(pcm);
    return this.clock.write(pcm.length / 2);
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
    this.clock.drop();
    this.discard();
  }

  abstract close(): Promise<void>;
  /** Hands PCM to the device, process or file. */
  protected abstract output(pcm: Buffer): void;
  /** Throws away whatever the device, process or file has not played yet. */
  protected abstract discard(): void;
}
