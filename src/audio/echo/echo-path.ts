/**
 * How loud hark's echo may be in a frame: the loudest of what was played within reach of it,
 * through the echo path's loss (the microphone's power over what was played, smoothed while
 * something plays). Pure: it is given powers, it reads no clock.
 */
import { NO_ECHO_DBFS } from '../frames.js';

/** Reference frames quieter than this mean power (about -70 dBFS) tell nothing about the echo path, and echo none. */
export const REFERENCE_FLOOR = 32768 * 32768 * 1e-7;
/** Smoothing of the echo path's loss per frame while something plays (about half a second), and the frames it needs first. */
export const LOSS_SMOOTHING = 0.03;
export const LOSS_MIN_FRAMES = 30;
/**
 * A frame this much louder than the echo predicted for it holds more than the echo (the user
 * talking over hark, or an echo path grown louder): it moves the measured loss this many times
 * more slowly. Otherwise the user's first words would make the echo seem as loud as the user,
 * and the rest of what they say would count as hark's own voice. An echo path grown louder is
 * learned all the same, in a few seconds; meanwhile its echo can pause the reply, which stops
 * the echo, but never confirm an interruption.
 */
const BEYOND_ECHO = 4;
export const BEYOND_ECHO_SLOWER = 10;
/**
 * Under this, next to nothing of what hark played is heard at the microphone lately: the delay
 * estimator's correlation at the tracked delay (see DelayEstimator.coherence). In the room bench
 * it was 0.01-0.03 (median) with hark's voice 60 dB under the user's, below the room's noise, and
 * 0.28-0.34 with it as loud as the user, whether they talked over it or not. There a frame far
 * over the echo predicted is someone else, and says nothing of the echo path's loudness: learnt
 * from, the user's words made their next words seem hark's own voice (the echo predicted stood
 * at -27 to -41 dBFS where hark's echo was under -80 and the room's noise at -70).
 */
export const ECHO_HEARD_COHERENCE = 0.15;
/** Reverberation after the direct sound that the prediction covers, ms (20 dB down in a room of RT60 300 ms). */
const REVERB_MS = 100;

/** How many frames of what was played, newest last, echo into the frame being judged. */
export function reachFrames(options: { frameMs: number; leadMs: number }): number {
  return Math.ceil((options.leadMs + REVERB_MS) / options.frameMs) + 1;
}

export class EchoPath {
  /** Mean power of the microphone and of the reference while something plays, smoothed: their ratio is the echo path's loss. */
  private path = { mic: 0, reference: 0, frames: 0 };
  /** Power of the reference in the last frames (newest last): what echoes into the frame being judged. */
  private readonly recent: number[] = [];

  constructor(
    private readonly options: {
      /** Length of a frame, ms. */
      frameMs: number;
      /** How much earlier than the echo's arrival the reference is read, ms (the canceller's lead). */
      leadMs: number;
    },
  ) {}

  /** Mean power of what was played, smoothed over the frames where something played. */
  get meanReference(): number {
    return this.path.reference;
  }

  /** What was played into the frame being judged (0: nothing). */
  remember(referencePower: number): void {
    this.recent.push(referencePower);
    if (this.recent.length > reachFrames(this.options)) this.recent.shift();
  }

  /** The loudness of the echo path: the microphone's power over the reference's (the user's speech only makes it seem louder). */
  learn(micPower: number, referencePower: number, beyondEcho: boolean, coherence: number | null): void {
    // Far over the echo while hark's voice is not heard at all: someone else, nothing of the path.
    if (beyondEcho && coherence !== null && coherence < ECHO_HEARD_COHERENCE) return;
    const path = this.path;
    const a = path.frames === 0 ? 1 : LOSS_SMOOTHING / (beyondEcho ? BEYOND_ECHO_SLOWER : 1);
    path.mic += a * (micPower - path.mic);
    path.reference += a * (referencePower - path.reference);
    path.frames++;
  }

  /** The frame holds more than the echo predicted for it: someone else is heard too. */
  beyondEcho(micPower: number): boolean {
    const predicted = this.predictedPower();
    return predicted !== null && micPower > BEYOND_ECHO * predicted;
  }

  /** The loudest the echo may be in the frame being judged, as mean power; null before the path's loss is known. */
  predictedPower(): number | null {
    const path = this.path;
    const loudest = Math.max(...this.recent);
    if (loudest < REFERENCE_FLOOR) return 0;
    if (path.frames < LOSS_MIN_FRAMES || path.reference <= 0) return null;
    return (loudest * path.mic) / path.reference;
  }

  /** The same in dBFS, no quieter than NO_ECHO_DBFS. */
  predictedDbfs(): number | null {
    const predicted = this.predictedPower();
    return predicted === null ? null : Math.max(NO_ECHO_DBFS, 10 * Math.log10((predicted + 1e-9) / (32768 * 32768)));
  }

  /** Forgets the path's loss and what was played (another device). */
  reset(): void {
    this.path = { mic: 0, reference: 0, frames: 0 };
    this.recent.length = 0;
  }
}
