import { describe, expect, it } from 'vitest';
import {
  WakeDecider,
  type WakeDeciderConfig,
  type WakeWordDetection,
} from '../../../../src/listen/wake/wake-decider.js';

const STEP_MS = 80;
const FRAME_MS = 10;
const config: WakeDeciderConfig = { threshold: 0.5, refractoryMs: 2000, endWaitMs: 160 };

/**
 * A stream described per 10 ms frame: loud ('#') or quiet ('.'), with a score per 80 ms step.
 * Frame i is centred at i * 10 + 5 ms.
 */
function run(decider: WakeDecider, frames: string, scores: Record<number, number>): WakeWordDetection[] {
  const found: WakeWordDetection[] = [];
  for (let step = 0; (step + 1) * 8 <= frames.length; step++) {
    const loudness = [...frames.slice(step * 8, step * 8 + 8)].map((c) => (c === '#' ? 10 : -6));
    found.push(
      ...decider.push({
        endMs: (step + 1) * STEP_MS,
        scores: [scores[step] ?? 0],
        loudness,
        firstFrameMs: step * STEP_MS + FRAME_MS / 2,
        frameMs: FRAME_MS,
      }),
    );
  }
  return found;
}

const quiet = (ms: number): string => '.'.repeat(ms / FRAME_MS);
const loud = (ms: number): string => '#'.repeat(ms / FRAME_MS);

describe('WakeDecider', () => {
  it('puts the end of the wake word where the pause after it begins', () => {
    // 1 s quiet, the wake word (1000..1600 ms), a 240 ms pause, the command; the score crosses at 1760 ms.
    const frames = quiet(1000) + loud(600) + quiet(240) + loud(800) + quiet(400);
    const found = run(new WakeDecider(['hey_jarvis'], config), frames, { 19: 0.2, 20: 0.4, 21: 0.9, 22: 0.95 });
    expect(found).toEqual([{ model: 'hey_jarvis', score: 0.9, atMs: 1760, endMs: 1600 }]);
  });

  it('waits for the pause when the score crosses before the wake word has ended', () => {
    // The score crosses at 1520 ms, while the word still sounds; the pause starts at 1600 ms.
    const frames = quiet(1000) + loud(600) + quiet(240) + loud(800) + quiet(400);
    const [detection] = run(new WakeDecider(['alexa'], config), frames, { 17: 0.3, 18: 0.7, 19: 0.9, 20: 0.9 });
    expect(detection).toMatchObject({ model: 'alexa', endMs: 1600, score: 0.9 });
    expect(detection?.atMs).toBeGreaterThan(1600);
    expect(detection?.atMs).toBeLessThanOrEqual(1520 + config.endWaitMs);
  });

  it('without a pause (one unbroken breath), gives up after endWaitMs and puts the end before the crossing', () => {
    const frames = quiet(1000) + loud(2000) + quiet(400);
    const [detection] = run(new WakeDecider(['hey_jarvis'], config), frames, { 17: 0.2, 18: 0.8 });
    expect(detection?.atMs).toBe(1520 + config.endWaitMs);
    expect(detection?.endMs).toBeLessThan(1520);
    expect(detection?.endMs).toBeGreaterThanOrEqual(1520 - 800);
  });

  it('does not take a pause from before the score began to rise for the end of the wake word', () => {
    // A pause at 700..900 ms, long before the wake word; the score rises from 1440 ms.
    const frames = quiet(300) + loud(400) + quiet(200) + loud(700) + quiet(300) + loud(500) + quiet(300);
    const [detection] = run(new WakeDecider(['hey_jarvis'], config), frames, { 17: 0.3, 18: 0.9, 19: 0.9 });
    expect(detection?.endMs).toBe(1600);
  });

  it('reports the model with the highest score when two cross together', () => {
    const decider = new WakeDecider(['alexa', 'hey_jarvis'], config);
    const frames = quiet(1000) + loud(600) + quiet(600);
    const found: WakeWordDetection[] = [];
    for (let step = 0; (step + 1) * 8 <= frames.length; step++) {
      const high = step >= 20 && step <= 21;
      found.push(
        ...decider.push({
          endMs: (step + 1) * STEP_MS,
          scores: high ? [0.6, 0.9] : [0, 0],
          loudness: [...frames.slice(step * 8, step * 8 + 8)].map((c) => (c === '#' ? 10 : -6)),
          firstFrameMs: step * STEP_MS + 5,
          frameMs: FRAME_MS,
        }),
      );
    }
    expect(found.map((d) => d.model)).toEqual(['hey_jarvis']);
  });

  it('hears nothing more during the refractory period, and again after it', () => {
    const word = quiet(700) + loud(600) + quiet(300);
    const frames = word.repeat(4);
    // The same wake word every 1.6 s (20 steps), ending 1300 ms into each; scores rise at 1360 ms.
    const scores: Record<number, number> = {};
    for (let k = 0; k < 4; k++) Object.assign(scores, { [k * 20 + 16]: 0.3, [k * 20 + 17]: 0.9 });
    const found = run(new WakeDecider(['hey_jarvis'], { ...config, refractoryMs: 2000 }), frames, scores);
    expect(found.map((d) => d.endMs)).toEqual([1300, 4500]);
    const all = run(new WakeDecider(['hey_jarvis'], { ...config, refractoryMs: 500 }), frames, scores);
    expect(all.map((d) => d.endMs)).toEqual([1300, 2900, 4500, 6100]);
  });

  it('forgets a wake word it was waiting to end on reset', () => {
    const decider = new WakeDecider(['hey_jarvis'], { ...config, endWaitMs: 1000 });
    expect(run(decider, quiet(1000) + loud(800), { 12: 0.9 })).toEqual([]);
    decider.reset();
    expect(run(decider, loud(400) + quiet(400), {})).toEqual([]);
  });
});
