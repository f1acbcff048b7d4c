import { describe, expect, it } from 'vitest';
import { takeUntil, type Observable } from 'rxjs';
import type { ColdObservable } from 'rxjs/internal/testing/ColdObservable';
import type { ReplyEvent } from '../../../src/service/reply.js';
import { runTurn, type AssistantState, type TurnOutcome } from '../../../src/pipeline/turn.js';
import type { UserTurn } from '../../../src/pipeline/user-turns.js';
import { FakePlayer, RecordingEarcons, pcm } from '../../helpers/fakes.js';
import { testScheduler } from './marbles.js';

const user: UserTurn = {
  utteranceId: 1,
  text: 'Tell me three things.',
  parts: 1,
  endOfSpeechAt: 0,
  transcriptionRequestAt: 0,
  transcriptAt: 0,
  audioMs: 1000,
};
const REPLY = {
  a: { type: 'text', text: 'First sentence is here. ' },
  b: { type: 'text', text: 'Second sentence is here. ' },
  c: { type: 'text', text: 'Third one ends it.' },
  d: { type: 'done', stopReason: 'stop', usage: { inputTokens: 9, outputTokens: 12, totalTokens: 21 } },
} satisfies Record<string, ReplyEvent>;

interface Harness {
  turn: Observable<never>;
  reply: ColdObservable<ReplyEvent>;
  synth: Map<string, ColdObservable<Buffer>>;
  player: FakePlayer;
  earcons: RecordingEarcons;
  outcomes: TurnOutcome[];
  states: AssistantState[];
}

/** One turn at 1 kHz (a sample per frame): each sentence is 10 ms of audio, synthesized in 2 frames. */
function harness(
  helpers: { cold: <T>(marbles: string, values?: Record<string, T>, error?: unknown) => ColdObservable<T> },
  now: () => number,
  synthMarbles: (text: string) => string = () => '--x|',
): Harness {
  const reply = helpers.cold<ReplyEvent>('-a-b-(cd|)', REPLY);
  const sentences = ['First sentence is here.', 'Second sentence is here.', 'Third one ends it.'];
  const synth = new Map(
    sentences.map((text) => [
      text,
      helpers.cold<Buffer>(synthMarbles(text), { x: pcm(10, 1000) }, new Error('tts failed')),
    ]),
  );
  const player = new FakePlayer(1000, now);
  const earcons = new RecordingEarcons();
  const outcomes: TurnOutcome[] = [];
  const states: AssistantState[] = [];
  const turn = runTurn(user, [{ role: 'user', text: user.text }], {
    replyModel: { reply: () => reply },
    synthesizer: {
      sampleRateHz: 1000,
      synthesize: (text) => {
        const request = synth.get(text);
        if (!request) throw new Error(`unexpected sentence: ${text}`);
        return request;
      },
    },
    player,
    earcons,
    lookahead: 2,
    lowWaterMs: 3,
    onState: (state) => states.push(state),
    onOutcome: (outcome) => outcomes.push(outcome),
    now,
  });
  return { turn, reply, synth, player, earcons, outcomes, states };
}

describe('runTurn', () => {
  it('plays the reply sentence by sentence and reports every latency', () => {
    const scheduler = testScheduler();
    let h: Harness | undefined;
    scheduler.run((helpers) => {
      h = harness(helpers, () => scheduler.now());
      // s0 plays 5-15; s1 is taken up at 12 (3 ms left), s2 at 22; the last sample plays at 35.
      helpers.expectObservable(h.turn).toBe('35ms |');
      helpers.expectSubscriptions(h.reply.subscriptions).toBe('^----!');
    });
    const outcome = h?.outcomes[0];
    expect(outcome).toMatchObject({
      reply: 'First sentence is here. Second sentence is here. Third one ends it.',
      heard: 'First sentence is here. Second sentence is here. Third one ends it.',
      interrupted: false,
      failed: undefined,
      usage: { inputTokens: 9, outputTokens: 12, totalTokens: 21 },
      sentences: 3,
      timings: {
        chatRequest: 0,
        firstToken: 1,
        firstSentence: 3,
        ttsRequest: 3,
        firstAudioByte: 5,
        firstWrite: 5,
        firstPlayed: 5,
      },
    });
    expect(h?.states).toEqual(['thinking', 'speaking', 'listening']);
    expect(h?.earcons.played).toEqual(['thinking']);
    expect(h?.player.stops).toBe(0);
  });

  it('barge-in while the reply streams: the reply and the synthesis in flight are unsubscribed', () => {
    const scheduler = testScheduler();
    let h: Harness | undefined;
    scheduler.run((helpers) => {
      h = harness(helpers, () => scheduler.now());
      helpers.expectObservable(h.turn.pipe(takeUntil(helpers.hot('----x')))).toBe('----|');
      helpers.expectSubscriptions(h.reply.subscriptions).toBe('^---!');
      helpers.expectSubscriptions(h.synth.get('First sentence is here.')?.subscriptions ?? []).toBe('---^!');
    });
    expect(h?.outcomes[0]).toMatchObject({ interrupted: true, heard: '' });
    expect(h?.player.stops).toBe(1);
    expect(h?.states.at(-1)).toBe('listening');
  });

  it('barge-in mid-sentence: the history gets whole sentences heard and the heard words of the one cut off', () => {
    const scheduler = testScheduler();
    let h: Harness | undefined;
    scheduler.run((helpers) => {
      h = harness(helpers, () => scheduler.now());
      // At 19, s0 (0-10) is played, and 4 of s1's 10 samples (10-20): "Second" of "Second sentence is here."
      helpers.expectObservable(h.turn.pipe(takeUntil(helpers.hot('19ms x')))).toBe('19ms |');
    });
    expect(h?.outcomes[0]).toMatchObject({ interrupted: true, heard: 'First sentence is here. Second' });
    expect(h?.player.stops).toBe(1);
  });

  it('barge-in while a later sentence is still being synthesized cancels that request', () => {
    const scheduler = testScheduler();
    let h: Harness | undefined;
    scheduler.run((helpers) => {
      h = harness(
        helpers,
        () => scheduler.now(),
        (text) => (text.startsWith('Third') ? '------------x|' : '--x|'),
      );
      helpers.expectObservable(h.turn.pipe(takeUntil(helpers.hot('9ms x')))).toBe('9ms |');
      helpers.expectSubscriptions(h.synth.get('Third one ends it.')?.subscriptions ?? []).toBe('-----^---!');
    });
    expect(h?.outcomes[0]?.interrupted).toBe(true);
  });

  it('a failed synthesis ends the turn with the error earcon and the reason, without an uncaught error', () => {
    const scheduler = testScheduler();
    let h: Harness | undefined;
    scheduler.run((helpers) => {
      h = harness(
        helpers,
        () => scheduler.now(),
        (text) => (text.startsWith('Second') ? '-#' : '--x|'),
      );
      helpers.expectObservable(h.turn).toBe('12ms |');
    });
    expect(h?.outcomes[0]?.failed?.message).toBe('tts failed');
    expect(h?.outcomes[0]?.interrupted).toBe(false);
    // The failure surfaces at 12 with 3 ms of s0 still queued; the stop drops them: 7 of 10 samples heard.
    expect(h?.outcomes[0]?.heard).toBe('First sentence');
    expect(h?.earcons.played).toEqual(['thinking', 'error']);
    expect(h?.player.stops).toBe(1);
  });
});
