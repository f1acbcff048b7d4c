import { DelayDrift } from './delay-drift.js';
import type { DelayEstimator } from './delay-estimator.js';
import { leadFor } from './lead.js';
import { MicTimeline } from './mic-timeline.js';

/** Fastest the reference follows a drifting delay, ms per second (a clock skew of 2000 ppm). */
const MAX_SLEW_MS_PER_S = 2;
/**
 * In a quiet, once the canceller's dates are this far from the reframer's (ms), the offset goes
 * into the shift, which reads the reference where it did: the dates stay near the reframer's,
 * which the reference's reach and history are measured by.
 */
const FOLD_MS = 50;

/**
 * Where in the echo reference each microphone frame is read: its date on the canceller's own
 * timeline (see MicTimeline), less the estimated delay, less a lead so that the filter starts a
 * little before the echo. Follows a drifting delay smoothly, re-aligns on a jump, and carries
 * the drift across a silence. Pure: the times are given.
 */
export class EchoAlignment {
  /** The reference is read this much earlier than the frame's date: the delay less the lead. */
  private shift = 0;
  /** The lead in use, fixed at each alignment so that the shift follows a drifting delay one for one. */
  private lead = 0;
  private readonly drift = new DelayDrift();
  private readonly timeline = new MicTimeline();
  /** The estimator's updates already noted for the drift, and when the last frame with something to cancel was captured. */
  private noted = 0;
  private lastActiveAt: number | undefined;
  private stepped = 0;

  constructor(
    private readonly estimator: DelayEstimator,
    private readonly options: { initialDelayMs: number; leadMs: number },
  ) {
    this.reset();
  }

  get shiftMs(): number {
    return this.shift;
  }

  /** How many times a new stream's delay stepped the shift, the filter kept. */
  get steps(): number {
    return this.stepped;
  }

  /** The date on the canceller's timeline of a frame of `durationMs` the reframer dated `capturedAtMs`. */
  place(capturedAtMs: number, durationMs: number): number {
    return this.timeline.place(capturedAtMs, durationMs);
  }

  /** The date of a frame that might pass without being cancelled (`passes`), placing none. */
  peek(capturedAtMs: number): number {
    return capturedAtMs + this.timeline.offsetMs;
  }

  /** A frame placed that nothing hark played can reach: in such a quiet the timeline is brought back when far off. */
  rest(capturedAtMs: number, durationMs: number): void {
    this.timeline.place(capturedAtMs, durationMs);
    if (Math.abs(this.timeline.offsetMs) <= FOLD_MS) return;
    const offset = this.timeline.fold();
    this.shift -= offset;
    this.estimator.carry(-offset);
    this.drift.reset();
    this.noted = this.estimator.estimate()?.updates ?? 0;
    if (this.lastActiveAt !== undefined) this.lastActiveAt -= offset;
  }

  /**
   * Follows the delay estimate of the frame dated `atMs`: a drift smoothly (the reference is
   * read at fractional times), so the filter sees a still echo path; a new stream's step at
   * once (`stepped`: the filter still fits, but must show it again); a jump beyond half the lead
   * by re-aligning the reference (`realigned`: the filter must be trained afresh).
   */
  follow(atMs: number, frameMs: number): 'stepped' | 'realigned' | undefined {
    const estimate = this.estimator.estimate();
    if (!estimate) return undefined;
    const gap = estimate.delayMs - this.lead - this.shift;
    if (estimate.updates !== this.noted) {
      this.noted = estimate.updates;
      this.drift.note(atMs, estimate.delayMs, estimate.stepped);
      // A new stream's latency stepped: the echo path is the same, one step later or sooner.
      if (estimate.stepped) {
        this.shift += gap;
        this.stepped++;
        return 'stepped';
      }
    }
    if (Math.abs(gap) <= this.options.leadMs / 2) {
      const slew = (MAX_SLEW_MS_PER_S * frameMs) / 1000;
      this.shift += Math.max(-slew, Math.min(slew, gap));
      return undefined;
    }
    this.lead = leadFor(estimate.delayMs, this.options.leadMs);
    this.shift = estimate.delayMs - this.lead;
    return 'realigned';
  }

  /**
   * Something to cancel in the frame dated `atMs`, the first after a silence if `afterSilence`:
   * the delay has drifted on over it as it did before (the clocks have not stopped), and the
   * reference moves with it, so the filter still fits. Returns the shift made, ms.
   */
  active(atMs: number, afterSilence: boolean): number {
    const since = this.lastActiveAt ?? atMs;
    this.lastActiveAt = atMs;
    if (!afterSilence) return 0;
    const change = this.drift.over(atMs - since);
    if (change === 0) return 0;
    this.shift += change;
    this.estimator.carry(change);
    return change;
  }

  reset(): void {
    this.drift.reset();
    this.timeline.reset();
    this.noted = 0;
    this.lastActiveAt = undefined;
    this.lead = leadFor(this.options.initialDelayMs, this.options.leadMs);
    this.shift = this.options.initialDelayMs - this.lead;
  }
}
