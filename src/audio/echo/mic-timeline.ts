/**
 * The microphone's frames as the echo canceller dates them. The reframer (audio/frames.ts) dates
 * frames by the samples counted since an instant it moves earlier whenever audio arrives sooner
 * than the count allows: right for when something was said, but through a sound server the
 * instant moves by a few milliseconds when a stream starts and by a tenth at a time while one
 * plays, and each move would shift hark's voice in the microphone against its reference by as
 * much though the echo's path is as it was. A filter fitted to the path then fits no more.
 * Here frames follow one another sample for sample; a move earlier is kept as an offset (a
 * frame that comes later than the last one ends, audio lost, is taken as it is).
 * Pure: the times are given.
 */
export class MicTimeline {
  private nextMs: number | undefined;
  /** How much later than the reframer's dates frames are dated here, ms (≥ 0). */
  private offset = 0;

  /** The frame captured at `capturedAtMs` (the reframer's date), lasting `durationMs`, on this timeline. */
  place(capturedAtMs: number, durationMs: number): number {
    const dated = capturedAtMs + this.offset;
    const placed = this.nextMs !== undefined && dated < this.nextMs ? this.nextMs : dated;
    this.offset += placed - dated;
    this.nextMs = placed + durationMs;
    return placed;
  }

  get offsetMs(): number {
    return this.offset;
  }

  /** Back to the reframer's dates. Returns the offset given up, ms. */
  fold(): number {
    const offset = this.offset;
    this.offset = 0;
    if (this.nextMs !== undefined) this.nextMs -= offset;
    return offset;
  }

  reset(): void {
    this.offset = 0;
    this.nextMs = undefined;
  }
}
