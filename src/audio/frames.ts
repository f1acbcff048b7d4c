/** A fixed-size piece of 16-bit mono audio, and when its last sample was captured (monotonic ms). */
export interface Frame {
  samples: Int16Array;
  capturedAt: number;
}

/**
 * Regroups PCM byte chunks of any size (odd lengths included) into frames of a fixed sample
 * count, each stamped with when its last sample was captured: a chunk is taken to have been
 * captured up to the moment it arrived.
 */
export class Reframer {
  private carry: Buffer = Buffer.alloc(0);

  constructor(
    private readonly frameSamples: number,
    private readonly sampleRateHz: number,
  ) {}

  push(chunk: Buffer, arrivedAt: number): Frame[] {
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const frameBytes = this.frameSamples * 2;
    const frames: Frame[] = [];
    let at = 0;
    for (; at + frameBytes <= data.length; at += frameBytes) {
      // Copy into aligned memory: the chunk's offset may be odd, and frames outlive the chunk.
      const samples = new Int16Array(this.frameSamples);
      Buffer.from(samples.buffer).set(data.subarray(at, at + frameBytes));
      const laterSamples = (data.length - at - frameBytes) / 2;
      frames.push({ samples, capturedAt: arrivedAt - (laterSamples / this.sampleRateHz) * 1000 });
    }
    this.carry = Buffer.from(data.subarray(at));
    return frames;
  }
}
