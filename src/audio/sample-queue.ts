/**
 * Samples waiting to be processed, in order, with their place in the stream: pushed in frames of
 * any length, taken in whatever count the consumer works in, the oldest dropped when asked.
 */
export class SampleQueue {
  private chunks: Int16Array[] = [];
  private queued = 0;
  /** Stream position (samples) of the first queued sample. */
  private head = 0;

  /** Samples waiting. */
  get length(): number {
    return this.queued;
  }

  /** Where the next sample taken lies in the stream (samples since the start). */
  get position(): number {
    return this.head;
  }

  /** Keeps a copy of `frame`. */
  push(frame: Int16Array): void {
    if (frame.length === 0) return;
    this.chunks.push(frame.slice());
    this.queued += frame.length;
  }

  /** The next `count` samples (at most what is queued), removed from the queue. */
  take(count: number): Int16Array {
    const out = new Int16Array(Math.min(count, this.queued));
    let at = 0;
    while (at < out.length) {
      const chunk = this.chunks[0] as Int16Array;
      const n = Math.min(chunk.length, out.length - at);
      out.set(chunk.subarray(0, n), at);
      at += n;
      this.consume(n);
    }
    return out;
  }

  /** Drops the oldest samples down to `keep`; returns how many were dropped. */
  dropOldest(keep: number): number {
    let excess = Math.max(0, this.queued - keep);
    const dropped = excess;
    while (excess > 0) {
      const n = Math.min((this.chunks[0] as Int16Array).length, excess);
      this.consume(n);
      excess -= n;
    }
    return dropped;
  }

  /** Empties the queue; the stream position moves past what was waiting. */
  clear(): void {
    this.dropOldest(0);
  }

  private consume(n: number): void {
    const chunk = this.chunks[0] as Int16Array;
    if (n === chunk.length) this.chunks.shift();
    else this.chunks[0] = chunk.subarray(n);
    this.queued -= n;
    this.head += n;
  }
}
