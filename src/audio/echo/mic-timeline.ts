/**
 * The microphone's frames as the echo canceller dates them: one after another, sample for
 * sample. The reframer (audio/frames.ts) dates frames by the samples counted since an instant
 * it moves: earlier whenever audio arrives sooner than the count allows, later when audio
 * arrives so late that some seems lost. Right for when something was said, but the echo's path
 * is as it was: through a sound server the instant moved by a few milliseconds when a stream
 * started and by a tenth at a time while one played, and on a slow board by hundreds of
 * milliseconds after a stall in reading, and each move shifted hark's voice in the microphone
 * against its reference by as much. A filter fitted to the path then fitted no more. Every
 * frame reaches the canceller, so counting is right; the difference from the reframer's dates
 * is kept as an offset. Pure: the times are given.
 */
export class MicTimeline {
  private nextMs: number | undefined;
  /** How much later than the reframer's dates frames are dated here, ms (earlier when below 0). */
  private offset = 0;

  /** The frame the reframer dated `capturedAtMs`, lasting `durationMs`, on this timeline. */
  place(capturedAtMs: number, durationMs: number): number {
    const placed = this.nextMs ?? capturedAtMs + this.offset;
    this.offset = placed - capturedAtMs;
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
