import { dbfs, rms } from '../../audio/pcm.js';
import { WAKE_SAMPLE_RATE_HZ } from './wake-features.js';

/**
 * When the wake-word detector must work: from the first step with sound that could be a wake
 * word until its windows hold none any more. In a quiet room it does nothing but this.
 *
 * A step has sound when it is at least `capDbfs` loud, or more than `marginDb` above the room's
 * noise floor: the level of the first step, then dropping at once to a quieter step and rising
 * slowly (a voice barely moves it, a fan switched on soon counts as quiet). Pure: no I/O, no timers.
 */
export interface WakeAttentionOptions {
  /** A step at least this loud always has sound (dBFS). */
  capDbfs: number;
  /** A quieter step has sound when it is this far above the noise floor (dB). */
  marginDb: number;
  /** How long the detector keeps working after the last step with sound: what its windows reach back over. */
  holdMs: number;
}

/**
 * - `idle`: nothing to do for this step;
 * - `begin`: sound after quiet: the detector starts afresh, from the audio it kept of the moments before;
 * - `busy`: it scores this step.
 */
export type Attention = 'idle' | 'begin' | 'busy';

/** How fast the floor may rise, in dB per second of audio. */
const FLOOR_RISE_DB_PER_S = 1.25;

export class WakeAttention {
  private floorDb = Infinity;
  /** Audio since the last step with sound (Infinity: none since the start or the last rest). */
  private quietMs = Infinity;

  constructor(private readonly options: WakeAttentionOptions) {}

  /** Takes the next step's samples (any length): what the detector must do with it. */
  next(step: Int16Array): Attention {
    const level = dbfs(rms(step));
    const stepMs = (step.length / WAKE_SAMPLE_RATE_HZ) * 1000;
    this.floorDb = Math.min(level, this.floorDb + (FLOOR_RISE_DB_PER_S * stepMs) / 1000);
    const sound = level >= Math.min(this.options.capDbfs, this.floorDb + this.options.marginDb);
    const wasIdle = this.quietMs > this.options.holdMs;
    this.quietMs = sound ? 0 : this.quietMs + stepMs;
    if (this.quietMs > this.options.holdMs) return 'idle';
    return wasIdle ? 'begin' : 'busy';
  }

  /** The room's noise floor, dBFS (Infinity before any step). */
  get floorDbfs(): number {
    return this.floorDb;
  }

  /** The next sound begins afresh. The room's noise floor is kept. */
  rest(): void {
    this.quietMs = Infinity;
  }
}
