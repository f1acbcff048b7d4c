import { describe, expect, it } from 'vitest';
import { exposureProblem, isLoopback, parseListen } from '../../../src/web/access.js';
import { PageState, TURNS_KEPT, quantile } from '../../../src/web/page-state.js';
import type { TurnSummary } from '../../../src/web/page-json.js';

function turn(id: number, firstAudio: number, cut: string | false = false): TurnSummary {
  return {
    id,
    endedAt: '2026-01-01T00:00:00.000Z',
    transcript: `question ${id}`,
    reply: 'First sentence. Second sentence.',
    heard: cut ? 'First sentence.' : 'First sentence. Second sentence.',
    unheard: cut ? 'Second sentence.' : '',
    interrupted: cut,
    usage: null,
    latencyMs: { transcript: 100, firstAudio },
    audioMs: { written: 1000, played: 1000 },
  };
}

describe('access', () => {
  it('starts on loopback without a token; elsewhere only with a long enough one', () => {
    expect(parseListen('[::1]:8790')).toEqual({ host: '::1', port: 8790 });
    expect(isLoopback('127.0.0.1') && isLoopback('localhost') && isLoopback('::1')).toBe(true);
    expect(isLoopback('0.0.0.0') || isLoopback('192.168.1.5')).toBe(false);
    expect(exposureProblem('127.0.0.1:8790', undefined)).toBeUndefined();
    expect(exposureProblem('0.0.0.0:8790', undefined)).toMatch(/needs a token: set HARK_WEB_TOKEN/);
    expect(exposureProblem('0.0.0.0:8790', 'short')).toMatch(/too short/);
    expect(exposureProblem('0.0.0.0:8790', 'a-token-of-enough-length')).toBeUndefined();
  });
});

describe('the page state', () => {
  it('shows what hark hears and says now, then the turn in the conversation', () => {
    const page = new PageState({});
    page.apply({ type: 'state', state: 'listening' });
    page.apply({ type: 'transcript', utteranceId: 1, text: 'what time', tentative: true });
    expect(page.snapshot().hearing).toEqual({ utteranceId: 1, text: 'what time', tentative: true });
    page.apply({ type: 'query', utteranceId: 1, text: 'what time is it' });
    page.apply({ type: 'saying', index: 0, text: 'It is noon.' });
    expect(page.snapshot()).toMatchObject({
      hearing: null,
      answering: { query: 'what time is it', saying: ['It is noon.'] },
    });
    page.apply({ type: 'turn', turn: turn(1, 900, 'barge-in') });
    page.apply({ type: 'transcription-failed', utteranceId: 2, error: 'HTTP 503' });
    const { answering, conversation } = page.snapshot();
    expect(answering).toBeNull();
    expect(conversation.map((entry) => entry.kind)).toEqual(['turn', 'event']);
    expect(conversation[0]).toMatchObject({ turn: { interrupted: 'barge-in', unheard: 'Second sentence.' } });
  });

  it('keeps the last turns with the median and p90 of each step', () => {
    const page = new PageState({});
    for (let i = 1; i <= TURNS_KEPT + 10; i++) page.apply({ type: 'turn', turn: turn(i, i * 10) });
    const { turns, stats } = page.report();
    expect(turns).toHaveLength(TURNS_KEPT);
    expect(turns[0]?.id).toBe(11);
    expect(stats.firstAudio).toEqual({ median: 355, p90: 551, count: TURNS_KEPT });
    expect(quantile([], 0.5)).toBe(0);
  });
});

describe('a ring', () => {
  it('shows hark ringing while it listens, in the conversation too, and listening again once stopped', () => {
    const page = new PageState({});
    page.apply({ type: 'state', state: 'listening' });
    page.apply({ type: 'ring', phase: 'started', ids: ['t1'], text: 'Your pasta timer is done.' });
    expect(page.snapshot().state).toBe('ringing');
    page.apply({ type: 'ring', phase: 'stopped', ids: ['t1'], text: 'Your pasta timer is done.', by: 'stop' });
    const { state, conversation } = page.snapshot();
    expect(state).toBe('listening');
    expect(conversation.map((entry) => entry.kind === 'event' && entry.event.type)).toEqual(['ring', 'ring']);
  });
});
