import { describe, it } from 'vitest';
import { map } from 'rxjs';
import { moments } from '../../../../src/app/home/moments.js';
import type { Turn } from '../../../../src/dialog/turn.js';
import type { AssistantEvent } from '../../../../src/pipeline/events.js';
import type { Notice } from '../../../../src/pipeline/ports.js';
import { testScheduler } from '../../../helpers/marbles.js';

const turn = (failed?: Error) => ({ failed }) as unknown as Turn;
const ask: Notice = { id: 'n1', kind: 'ask', text: 'Shall I?', arrivedAt: 0 };
const announce: Notice = { ...ask, kind: 'announce' };
const EVENTS: Record<string, AssistantEvent> = {
  w: { type: 'wake', phrase: 'hey jarvis' },
  t: { type: 'state', state: 'thinking' },
  s: { type: 'state', state: 'speaking' },
  l: { type: 'state', state: 'listening' },
  d: { type: 'turn', turn: turn() },
  f: { type: 'turn', turn: turn(new Error('the service is down')) },
  r: { type: 'ring', phase: 'started', ids: ['t1'], text: 'Your timer is done.' },
  o: { type: 'ring', phase: 'stopped', ids: ['t1'], text: 'Your timer is done.', by: 'stop' },
  a: { type: 'notice', phase: 'started', notice: announce },
  b: { type: 'notice', phase: 'spoken', notice: announce, timings: { speechRequest: 0 }, playedMs: 900 },
  k: { type: 'notice', phase: 'started', notice: ask },
  m: { type: 'notice', phase: 'spoken', notice: ask, timings: { speechRequest: 0 }, playedMs: 900 },
};
const MOMENTS = {
  i: 'idle/idle',
  w: 'wake/listening',
  l: 'listening/listening',
  t: 'thinking/thinking',
  s: 'speaking/speaking',
  e: 'error/error',
  m: 'muted/muted',
};

function expectMoments(events: string, muted: string, expected: string, followUpMs = 5): void {
  testScheduler().run(({ hot, expectObservable }) => {
    const seen = moments(hot(events, EVENTS), hot(muted, { t: true, f: false }), followUpMs).pipe(
      map(({ moment, state }) => `${moment}/${state}`),
    );
    expectObservable(seen).toBe(expected, MOMENTS);
  });
}

describe('moments: what hooks run at and Home Assistant shows', () => {
  it('a turn: the wake word, thinking, speaking, listening through the follow-up window, then idle', () => {
    expectMoments('-w-t-s-(ld)', 'f', 'iw-t-s-l----i');
  });

  it('a failed turn shows an error (not listening), then idle', () => {
    expectMoments('-t-(lf)', 'f', 'it-e----i');
  });

  it('a ring and an announcement sound as speaking and end idle; a question ends listening for its answer', () => {
    expectMoments('-r-o-a-b-k-m', 'f', 'is-i-s-i-s-l----i');
  });

  it('muted: shown at once and kept, whatever ends; unmuting is idle again', () => {
    expectMoments('----t-s-(ld)', 'f-t---------f', 'i-m-t-s-m---i');
  });
});
