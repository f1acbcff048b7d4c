/** The echo predicted for a frame nothing audible was played into, dBFS. */
export const NO_ECHO_DBFS = -120;

/**
 * A frame whose power beyond the echo predicted band by band (each band's own margin taken) is
 * at least this far under the echo predicted holds someone else's sound: the user talking over
 * hark, or an echo path grown louder than measured (see BandPath).
 */
export const BEYOND_BANDS_DB = -15;

/**
 * A fixed-size piece of 16-bit mono audio, when its last sample was captured (monotonic ms),
 * and, once the echo canceller has seen it, how loud the echo it took out was (dBFS), whether
 * that can be trusted (the canceller had converged, or nothing could echo), and the loudest
 * the echo may be by what hark played (dBFS; null while unknown, NO_ECHO_DBFS when nothing
 * audible was played within its reach), how far below the echo it took out the canceller
 * leaves hark's voice (dB, null while unmeasured), and what it is known to take out of hark's
 * words lately, trusted or not (dB).
 */
export interface Frame {
  samples: Int16Array;
  capturedAt: number;
  echoDbfs?: number;
  echoTrusted?: boolean;
  echoPredictedDbfs?: number | null;
  echoLossDb?: number | null;
  echoTakenDb?: number;
  /** How far the sound beyond the echo predicted band by band lies under that echo, dB (see EchoVerdict.beyondDb). */
  echoBeyondDb?: number | null;
}

/**
 * Regroups PCM byte chunks of any size (odd lengths included) into frames of a fixed sample
 * count, each stamped with when its last sample was captured. Times come from the samples
 * counted since a start instant: a chunk was captured no later than it arrived, so a chunk
 * arriving sooner than the count allows moves the start earlier, and one arriving more than
 * `resyncMs` later than the count says means audio was lost (a reopened microphone): the
 * timeline starts over from that arrival.
 */
export class Reframer {
  private carry: Buffer = Buffer.alloc(0);
  private startMs: number | undefined;
  /** Samples counted on the timeline: those framed and those still carried. */
  private counted = 0;

  constructor(
    private readonly frameSamples: number,
    private readonly sampleRateHz: number,
    private readonly resyncMs = 200,
  ) {}

  push(chunk: Buffer, arrivedAt: number): Frame[] {
    const msPerSample = 1000 / this.sampleRateHz;
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const carried = Math.floor(this.carry.length / 2);
    const total = Math.floor(data.length / 2);
    const fresh = total - carried;
    if (
      this.startMs === undefined ||
      arrivedAt - (this.startMs + (this.counted + fresh) * msPerSample) > this.resyncMs
    ) {
      this.counted = carried;
      this.startMs = arrivedAt - total * msPerSample;
    } else {
      this.startMs = Math.min(this.startMs, arrivedAt - (this.counted + fresh) * msPerSample);
    }
    this.counted += fresh;
    const frameBytes = this.frameSamples * 2;
    const frames: Frame[] = [];
    const firstSample = this.counted - total;
    let at = 0;
    for (; at + frameBytes <= data.length; at += frameBytes) {
      // Copy into aligned memory: the chunk's offset may be odd, and frames outlive the chunk.
      const samples = new Int16Array(this.frameSamples);
      Buffer.from(samples.buffer).set(data.subarray(at, at + frameBytes));
      const end = firstSample + (at + frameBytes) / 2;
      frames.push({ samples, capturedAt: this.startMs + end * msPerSample });
    }
    this.carry = Buffer.from(data.subarray(at));
    return frames;
  }
}
