import { describe, expect, it } from 'vitest';
import { DelayDrift } from '../../../../src/audio/echo/delay-drift.js';

describe('DelayDrift', () => {
  it('carries a steady clock skew across a silence', () => {
    const drift = new DelayDrift();
    // 100 ppm: the delay grows by 0.1 ms a second, estimated every 250 ms for 4 s.
    for (let at = 0; at <= 4000; at += 250) drift.note(at, 120 + at * 0.0001);
    expect(drift.over(10_000)).toBeCloseTo(1, 6);
  });

  it('says nothing until it has seen enough estimates over long enough', () => {
    const drift = new DelayDrift();
    for (let at = 0; at <= 1000; at += 250) drift.note(at, 120 + at * 0.0001);
    expect(drift.over(10_000)).toBe(0);
  });

  it('takes a jump of the delay for another echo path, not for drift, and measures the rate afresh from there', () => {
    const drift = new DelayDrift();
    for (let at = 0; at <= 4000; at += 250) drift.note(at, 60);
    // The sound server ran dry and plays on 160 ms later: nothing is known of a rate on the new path yet.
    drift.note(4250, 220);
    expect(drift.over(30_000)).toBe(0);
    // 100 ppm on the new path.
    for (let at = 4500; at <= 8500; at += 250) drift.note(at, 220 - (at - 4250) * 0.0001);
    expect(drift.over(10_000)).toBeCloseTo(-1, 6);
  });

  it("keeps the rate across a new stream's step: the player's latency stepped, the clocks drift on", () => {
    const drift = new DelayDrift();
    for (let at = 0; at <= 4000; at += 250) drift.note(at, 120 + at * 0.0001);
    drift.note(4250, 123 + 4250 * 0.0001, true);
    expect(drift.over(10_000)).toBeCloseTo(1, 6);
  });

  it('clamps the rate to 1000 ppm and carries at most a minute', () => {
    const drift = new DelayDrift();
    // 2000 ppm, 8 ms over 4 s: within what a jump is, but faster than clocks drift.
    for (let at = 0; at <= 4000; at += 250) drift.note(at, 120 + at * 0.002);
    expect(drift.over(10_000)).toBeCloseTo(10, 6);
    expect(drift.over(600_000)).toBeCloseTo(60, 6);
  });

  it('forgets on reset', () => {
    const drift = new DelayDrift();
    for (let at = 0; at <= 4000; at += 250) drift.note(at, 120 + at * 0.0001);
    drift.reset();
    expect(drift.over(10_000)).toBe(0);
  });
});
