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

  it('takes a jump of the delay (another path) for no more than 1000 ppm, and carries at most a minute', () => {
    const drift = new DelayDrift();
    for (let at = 0; at <= 3000; at += 250) drift.note(at, at < 1500 ? 100 : 200);
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
