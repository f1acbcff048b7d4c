import { describe, expect, it } from 'vitest';
import { pageEvents } from '../../../../src/app/page/page-events.js';
import { PLAYBACK_FIX, PlaybackError } from '../../../../src/audio/playback-error.js';
import { API_KEY_FIX } from '../../../../src/config/load.js';
import type { Turn } from '../../../../src/dialog/turn.js';
import { ServiceError } from '../../../../src/service/service-error.js';
import type { TurnSummary } from '../../../../src/web/page-json.js';
import type { AssistantEvent } from '../../../../src/pipeline/events.js';

const TRANSCRIPT = {
  utteranceId: 4,
  text: 'Tell me about mountains',
  parts: 1,
  audioMs: 1500,
  speechEndedAt: 1000,
  endpointedAt: 1300,
  transcriptionRequestAt: 1300,
  transcriptAt: 1500,
  overlapped: false,
  tentative: false,
  droppedGuesses: 0,
};

function turn(interrupted: Turn['interrupted']): Turn {
  return {
    query: { text: TRANSCRIPT.text, transcript: TRANSCRIPT },
    reply: 'Everest is the tallest. K2 is the second.',
    heard: interrupted ? 'Everest is the tallest.' : 'Everest is the tallest. K2 is the second.',
    interrupted,
    failed: undefined,
    usage: { inputTokens: 10, outputTokens: 12, totalTokens: 22 },
    timings: { speechEnd: 1000, endpointed: 1300, transcriptionRequest: 1300, transcript: 1500, firstPlayed: 2200 },
    sentences: 2,
    stoppedAt: undefined,
    endedAt: 4000,
    audioMs: { written: 3000, played: 1400 },
    extraRequests: { transcriptions: 0, replies: 0 },
    tools: [],
  };
}

describe('the page’s events, from the loop’s', () => {
  it('a turn cut short: what was heard, then the rest never heard, with the turn log’s latencies', () => {
    const toPage = pageEvents(() => new Date('2026-01-01T00:00:00Z'));
    const shown = toPage({ type: 'turn', turn: turn('speech') });
    expect(shown).toMatchObject({
      type: 'turn',
      turn: {
        id: 1,
        transcript: 'Tell me about mountains',
        heard: 'Everest is the tallest.',
        unheard: 'K2 is the second.',
        interrupted: 'speech',
        latencyMs: { endpointing: 300, transcript: 500, firstSamplePlayed: 1200 },
      },
    });
    expect(toPage({ type: 'turn', turn: turn(false) })).toMatchObject({
      turn: { id: 2, unheard: '', interrupted: false },
    });
  });

  it('a failed turn says at which stage, and what to do when hark knows: a refused key, a player that cannot play', () => {
    const toPage = pageEvents();
    const refused = new ServiceError({
      endpoint: 'chat',
      status: 401,
      type: 'authentication_error',
      message: 'bad key',
    });
    expect(toPage({ type: 'turn', turn: { ...turn(false), failed: refused } })).toMatchObject({
      turn: { failed: { stage: 'reply', error: 'chat: HTTP 401 authentication_error: bad key', fix: API_KEY_FIX } },
    });
    const lost = new PlaybackError('aplay exited with 1', 0, 100);
    expect(toPage({ type: 'turn', turn: { ...turn(false), failed: lost } })).toMatchObject({
      turn: { failed: { stage: 'playback', error: 'aplay exited with 1', fix: PLAYBACK_FIX } },
    });
    const unknown = toPage({ type: 'turn', turn: { ...turn(false), failed: new Error('tts failed') } });
    expect(unknown).toMatchObject({ turn: { failed: { stage: 'playback', error: 'tts failed' } } });
    expect((unknown as { turn: TurnSummary }).turn.failed).not.toHaveProperty('fix');
  });

  it('leaves audio out: no per-frame events, one speech event per utterance, no samples in unknown events', () => {
    const toPage = pageEvents();
    expect(toPage({ type: 'silence' } as AssistantEvent)).toBeUndefined();
    expect(toPage({ type: 'speech', id: 7, onsetMs: 0, durationMs: 32 } as AssistantEvent)).toEqual({
      type: 'speech',
      utteranceId: 7,
    });
    expect(toPage({ type: 'speech', id: 7, onsetMs: 0, durationMs: 64 } as AssistantEvent)).toBeUndefined();
    const odd = { type: 'tool', name: 'clock', samples: new Int16Array(4), error: new Error('no clock') };
    expect(toPage(odd as unknown as AssistantEvent)).toEqual({ type: 'tool', name: 'clock', error: 'no clock' });
  });
});
