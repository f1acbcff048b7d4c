import { describe, it } from 'vitest';
import type { Turn } from '../../../src/dialog/turn.js';
import { betweenTurns } from '../../../src/pipeline/between-turns.js';
import type { AssistantEvent } from '../../../src/pipeline/events.js';
import { testScheduler } from '../../helpers/marbles.js';

const EVENTS: Record<string, AssistantEvent> = {
  t: { type: 'turn', turn: {} as Turn },
  l: { type: 'state', state: 'listening' },
  k: { type: 'state', state: 'thinking' },
  s: { type: 'state', state: 'speaking' },
};

describe('betweenTurns', () => {
  it('comes the quiet time after a turn is over, while hark listens', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('s-tl------|', EVENTS);
      expectObservable(events.pipe(betweenTurns(5))).toBe('-------x--|', { x: undefined });
    });
  });

  it('does not come when the next turn begins before the quiet time is over', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('-tl-k-s-tl--------|', EVENTS);
      expectObservable(events.pipe(betweenTurns(5))).toBe('-------------x----|', { x: undefined });
    });
  });

  it('comes once for turns ending one after another within the quiet time', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('-t-t------|', EVENTS);
      expectObservable(events.pipe(betweenTurns(5))).toBe('--------x-|', { x: undefined });
    });
  });
});
