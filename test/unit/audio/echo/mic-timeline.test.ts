import { describe, expect, it } from 'vitest';
import { MicTimeline } from '../../../../src/audio/echo/mic-timeline.js';

describe("MicTimeline: the microphone's frames dated one after another for the echo canceller", () => {
  it('keeps frames sample for sample when the dates move earlier or later, and keeps the difference', () => {
    const timeline = new MicTimeline();
    expect(timeline.place(1000, 16)).toBe(1000);
    // The reframer moved its start 3.5 ms earlier: the frame is still the one after the last.
    expect(timeline.place(1012.5, 16)).toBe(1016);
    expect(timeline.offsetMs).toBeCloseTo(3.5);
    expect(timeline.place(1028.5, 16)).toBe(1032);
    // A stall in reading: the reframer started over 250 ms later, though no audio was lost.
    expect(timeline.place(1294.5, 16)).toBe(1048);
    expect(timeline.offsetMs).toBeCloseTo(-246.5);
  });

  it('goes back to the given dates when folded, and says by how much', () => {
    const timeline = new MicTimeline();
    timeline.place(1000, 16);
    timeline.place(1010, 16);
    expect(timeline.fold()).toBeCloseTo(6);
    expect(timeline.offsetMs).toBe(0);
    expect(timeline.place(1026, 16)).toBe(1026);
  });
});
