/** The last `capacity` samples of a stream: what came just before, for a consumer that looks back. */
export class RecentSamples {
  private readonly ring: Int16Array;
  /** Samples appended since the start or the last clear. */
  private written = 0;

  constructor(readonly capacity: number) {
    this.ring = new Int16Array(capacity);
  }

  /** How many samples there are to look back on. */
  get length(): number {
    return Math.min(this.written, this.capacity);
  }

  append(samples: Int16Array): void {
    const from = Math.max(0, samples.length - this.capacity);
    for (let i = from; i < samples.length;) {
      const at = (this.written + i) % this.capacity;
      const n = Math.min(samples.length - i, this.capacity - at);
      this.ring.set(samples.subarray(i, i + n), at);
      i += n;
    }
    this.written += samples.length;
  }

  /** The newest `count` samples (fewer when fewer were appended), oldest first. */
  last(count: number): Int16Array {
    const n = Math.min(count, this.length);
    const out = new Int16Array(n);
    const start = this.written - n;
    for (let i = 0; i < n;) {
      const at = (start + i) % this.capacity;
      const run = Math.min(n - i, this.capacity - at);
      out.set(this.ring.subarray(at, at + run), i);
      i += run;
    }
    return out;
  }

  clear(): void {
    this.written = 0;
  }
}
