/** Regroups PCM byte chunks of any size (odd lengths included) into frames of a fixed sample count. */
export class Reframer {
  private carry: Buffer = Buffer.alloc(0);

  constructor(private readonly frameSamples: number) {}

  push(chunk: Buffer): Int16Array[] {
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const frameBytes = this.frameSamples * 2;
    const frames: Int16Array[] = [];
    let at = 0;
    for (; at + frameBytes <= data.length; at += frameBytes) {
      // Copy into aligned memory: the chunk's offset may be odd, and frames outlive the chunk.
      const frame = new Int16Array(this.frameSamples);
      Buffer.from(frame.buffer).set(data.subarray(at, at + frameBytes));
      frames.push(frame);
    }
    this.carry = Buffer.from(data.subarray(at));
    return frames;
  }
}
