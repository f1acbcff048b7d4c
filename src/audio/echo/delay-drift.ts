/**
 * How fast the echo delay drifts: the player's and the microphone's clocks never run at quite the
 * same rate, so the delay grows or shrinks steadily (tens to hundreds of parts per million).
 * Told every new delay estimate with when it was made, it gives the rate, so the delay can be
 * carried across a silence (nothing to measure it on) instead of found again after it. A jump
 * is not drift but another echo path (a sound server that ran dry, another device): the rate is
 * measured afresh from there. Pure.
 */
export class DelayDrift {
  private points: { atMs: number; delayMs: number }[] = [];

  /**
   * A new estimate of the delay, made at `atMs`; `stepped`: a new stream of the player's sounded
   * a step later or sooner, and the rate goes on from there.
   */
  note(atMs: number, delayMs: number, stepped = false): void {
    const last = this.points.at(-1);
    const off = last ? delayMs - last.delayMs - this.over(atMs - last.atMs) : 0;
    if (stepped) for (const point of this.points) point.delayMs += off;
    else if (Math.abs(off) > JUMP_MS) this.points = [];
    this.points.push({ atMs, delayMs });
    this.points = this.points.filter((p) => p.atMs > atMs - WINDOW_MS);
  }

  /** The delay's change over `elapsedMs` at the rate seen lately (0 while too little was seen). */
  over(elapsedMs: number): number {
    const points = this.points;
    if (points.length < MIN_POINTS) return 0;
    const span = (points.at(-1)?.atMs ?? 0) - (points[0]?.atMs ?? 0);
    if (span < MIN_SPAN_MS) return 0;
    const meanT = points.reduce((s, p) => s + p.atMs, 0) / points.length;
    const meanD = points.reduce((s, p) => s + p.delayMs, 0) / points.length;
    let num = 0;
    let den = 0;
    for (const p of points) {
      num += (p.atMs - meanT) * (p.delayMs - meanD);
      den += (p.atMs - meanT) ** 2;
    }
    const rate = Math.max(-MAX_RATE, Math.min(MAX_RATE, den > 0 ? num / den : 0));
    return rate * Math.min(elapsedMs, MAX_CARRY_MS);
  }

  reset(): void {
    this.points = [];
  }
}

/** Estimates used: those of the last 20 s, at least 6 of them over at least 2 s. */
const WINDOW_MS = 20_000;
const MIN_POINTS = 6;
const MIN_SPAN_MS = 2000;
/** Clocks further apart than 1000 ppm are not drift but a change of the path. */
const MAX_RATE = 0.001;
/** A delay this far from where the rate seen so far puts it is another echo path, ms. */
const JUMP_MS = 10;
/** A silence longer than this is carried only this far: after a minute, the delay is found afresh anyway. */
const MAX_CARRY_MS = 60_000;
