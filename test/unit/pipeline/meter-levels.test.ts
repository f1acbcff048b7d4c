import { describe, it } from 'vitest';
import { BehaviorSubject, NEVER } from 'rxjs';
import type { ScoredFrame } from '../../../src/listen/speech-events.js';
import { meterLevels } from '../../../src/pipeline/meter-levels.js';
import type { EchoState } from '../../../src/pipeline/ports.js';
import { testScheduler } from '../../helpers/marbles.js';

const frame = (amplitude: number, probability: number): ScoredFrame => ({
  samples: new Int16Array(512).fill(amplitude),
  capturedAt: 0,
  probability,
});
const FRAMES = { l: frame(16384, 0.8), q: frame(33, 0.1), z: frame(0, 0) };
const ECHO: EchoState = {
  active: true,
  delayMs: 120,
  delayConfidence: 0.9,
  coherence: 0.3,
  erleDb: 21,
  adapted: true,
  micDbfs: -30,
  outDbfs: -20,
  echoDbfs: -35,
};

describe('meterLevels', () => {
  it('gives the loudest level, the highest speech and wake scores of each interval, with the echo state', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const frames = hot<ScoredFrame>('lqq-qzq-zz|', FRAMES);
      const wake = hot('-a-----b---', {
        a: { atMs: 0, scores: { hey_jarvis: 0.3 } },
        b: { atMs: 0, scores: { hey_jarvis: 0.7 } },
      });
      const meters = frames.pipe(
        meterLevels({
          on: new BehaviorSubject(true),
          intervalMs: 3,
          now: () => scheduler.now(),
          wake,
          echo: { state: () => ECHO },
        }),
      );
      expectObservable(meters).toBe('----a---b-|', {
        a: { type: 'meter', levelDbfs: -6, vad: 0.8, wake: { hey_jarvis: 0.3 }, echo: ECHO },
        b: { type: 'meter', levelDbfs: -59.9, vad: 0.1, wake: { hey_jarvis: 0.7 }, echo: ECHO },
      });
    });
  });

  it('measures nothing while nobody looks: the frames are not even read', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const frames = hot<ScoredFrame>('l-q-l-q-l-q-|', FRAMES);
      const looking = hot('f--t---f-----', { t: true, f: false });
      const meters = frames.pipe(meterLevels({ on: looking, intervalMs: 1, now: () => scheduler.now() }));
      expectObservable(meters).toBe('----a-b-----|', {
        a: { type: 'meter', levelDbfs: -6, vad: 0.8 },
        b: { type: 'meter', levelDbfs: -59.9, vad: 0.1 },
      });
      // One subscription to see the frames end; one to measure, only while looked at.
      expectSubscriptions(frames.subscriptions).toBe(['^-----------!', '---^---!']);
    });
  });

  it('ends with the frames though whether anyone looks never ends', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const frames = hot<ScoredFrame>('--|', FRAMES);
      expectObservable(frames.pipe(meterLevels({ on: NEVER, intervalMs: 1, now: () => 0 }))).toBe('--|');
    });
  });
});
