/**
 * Where playback is: samples written to the player, and samples played, advancing at the
 * sample rate while audio is queued. Device callbacks are no guide to this (a null or
 * buffered device swallows audio long before it is heard), so hark keeps its own clock.
 */
export class PlaybackClock {
  private written = 0;
  private played = 0;
  private lastMs: number;
  private held = false;

  constructor(
    readonly sampleRateHz: number,
    /** Instant: played as soon as written (a file written as fast as possible). */
    private readonly instant = false,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.lastMs = now();
  }

  write(samples: number): number {
    this.advance();
    this.written += samples;
    if (this.instant) this.played = this.written;
    return this.written;
  }

  playedSamples(): number {
    this.advance();
    return this.played;
  }

  writtenSamples(): number {
    return this.written;
  }

  queuedMs(): number {
    this.advance();
    return ((this.written - this.played) / this.sampleRateHz) * 1000;
  }

  /** Playback holds where it is (nothing more is played) until `release`. */
  hold(): void {
    this.advance();
    this.held = true;
  }

  release(): void {
    this.advance();
    this.held = false;
  }

  get isHeld(): boolean {
    return this.held;
  }

  /** Everything queued is dropped: what was played stays played, the rest never will be. */
  drop(): number {
    this.advance();
    const dropped = this.written - this.played;
    this.written = this.played;
    return dropped;
  }

  private advance(): void {
    const now = this.now();
    if (this.played < this.written && !this.held) {
      const due = Math.floor(((now - this.lastMs) / 1000) * this.sampleRateHz);
      this.played = Math.min(this.written, this.played + due);
      // Keep the fraction of a sample not yet counted, so many small reads do not drift.
      this.lastMs = this.played === this.written ? now : this.lastMs + (due / this.sampleRateHz) * 1000;
    } else {
      this.lastMs = now;
    }
  }
}
