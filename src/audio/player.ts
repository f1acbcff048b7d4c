import { defer, of, switchMap, timer, type Observable } from 'rxjs';
import { PlaybackClock } from './playback-clock.js';

/**
 * Where hark's voice goes. Audio is queued; the playback clock says how much has been
 * played, which is how hark knows what part of a reply the user heard.
 */
export interface Player {
  readonly sampleRateHz: number;
  /** Queues 16-bit mono PCM; returns the timeline position (in samples) where it ends. */
  write(pcm: Buffer): number;
  playedSamples(): number;
  writtenSamples(): number;
  queuedMs(): number;
  /** Completes once no more than `ms` of audio is left to play. */
  queuedBelow(ms: number): Observable<void>;
  /** Drops everything not yet played, at once. */
  stop(): void;
  close(): Promise<void>;
}

export abstract class ClockedPlayer implements Player {
  protected readonly clock: PlaybackClock;

  constructor(
    readonly sampleRateHz: number,
    instant = false,
    now?: () => number,
  ) {
    this.clock = new PlaybackClock(sampleRateHz, instant, now);
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
      return timer(Math.max(1, Math.ceil(queued - ms))).pipe(switchMap(() => this.queuedBelow(ms)));
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
