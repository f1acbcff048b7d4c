import { describe, expect, it } from 'vitest';
import { NEVER, map, of, type Observable } from 'rxjs';
import { PlaybackError } from '../../../src/audio/playback-error.js';
import { TurnRecorder } from '../../../src/dialog/turn-recorder.js';
import type { Interruption, Transcript, Turn } from '../../../src/dialog/turn.js';
import type { TurnEvent } from '../../../src/pipeline/events.js';
import { recordTurn } from '../../../src/pipeline/record-turn.js';
import type { Placement } from '../../../src/speak/heard.js';
import { FakePlayer, RecordingEarcons, pcm } from '../../helpers/fakes.js';
import { testScheduler } from '../../helpers/marbles.js';
import { transcript } from '../../helpers/turns.js';

/** Sentences of the reply: each letter's words, and how long its audio is (ms, at 1 kHz: a sample a frame). */
const SENTENCES: Record<string, { index: number; text: string; ms: number }> = {
  a: { index: 0, text: 'One two three four.', ms: 10 },
  b: { index: 1, text: 'Five six.', ms: 5 },
  c: { index: 0, text: 'It is noon.', ms: 3 },
};

interface Turning {
  /** What the loop sees of the turn: `t` thinking, `s` speaking, `y` saying a sentence, `l` listening, `T` the record. */
  events: Observable<string>;
  turns: Turn[];
  player: FakePlayer;
  earcons: RecordingEarcons;
}

/**
 * One turn over "what time is it", its reply's sentences written to the player as each letter
 * of `placements` comes (as playSentences writes them).
 */
function turning(
  now: () => number,
  placements: Observable<string>,
  control: { cut?: Observable<Interruption>; start?: Observable<Transcript>; text?: Observable<string> } = {},
  query = 'what time is it',
): Turning {
  const player = new FakePlayer(1000, now);
  const earcons = new RecordingEarcons();
  const recorder = new TurnRecorder({ text: query, transcript: transcript(query) }, now);
  const turns: Turn[] = [];
  const events = placements.pipe(
    map((letter): Placement => {
      const { index, text, ms } = SENTENCES[letter] as (typeof SENTENCES)[string];
      const startSample = player.writtenSamples();
      return { sentence: { index, text }, startSample, endSample: player.write(pcm(ms, 1000)), final: true };
    }),
    recordTurn({
      recorder,
      player,
      earcons,
      cut: control.cut ?? NEVER,
      start: control.start ?? of(transcript(query)),
      text: control.text ?? of(query),
      now,
    }),
    map((event: TurnEvent) => {
      if (event.type === 'turn') turns.push(event.turn);
      if (event.type === 'state') return event.state[0] as string;
      return event.type === 'saying' ? 'y' : 'T';
    }),
  );
  return { events, turns, player, earcons };
}

describe('recordTurn', () => {
  it('a reply played to its end: thinking, speaking each sentence, listening once its last sample has played, then its record', () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ hot, expectObservable }) => {
      const r = turning(() => scheduler.now(), hot('-c------b|'));
      // "It is noon." plays 1-4, "Five six." 8-13.
      expectObservable(r.events).toBe('t(sy)---y----(lT|)');
      return r;
    });
    expect(r.turns).toMatchObject([
      {
        query: { text: 'what time is it' },
        heard: 'It is noon. Five six.',
        interrupted: false,
        failed: undefined,
        stoppedAt: undefined,
        endedAt: 13,
        audioMs: { written: 8, played: 8 },
      },
    ]);
    expect(r.earcons.played).toEqual(['thinking']);
    expect(r.player.stops).toBe(0);
  });

  it('a cut ends the turn at once: the reply let go, what was not played dropped, and the record says what was heard', () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const placements = hot('-a------b|');
      const r = turning(() => scheduler.now(), placements, { cut: hot('------c', { c: 'speech' }) });
      // "One two three four." plays from 1: half of it by the cut at 6.
      expectObservable(r.events).toBe('t(sy)-(lT|)');
      expectSubscriptions(placements.subscriptions).toBe('^-----!');
      return r;
    });
    expect(r.turns).toMatchObject([{ heard: 'One two', interrupted: 'speech', failed: undefined, stoppedAt: 6 }]);
    expect(r.player.stops).toBe(1);
  });

  it("a reply that fails part-way: the error earcon, and the turn is still recorded with the user's words and what they heard", () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ hot, expectObservable }) => {
      const r = turning(() => scheduler.now(), hot('-c---#', undefined, new Error('service unavailable')));
      expectObservable(r.events).toBe('t(sy)(lT|)');
      return r;
    });
    expect(r.turns).toMatchObject([
      {
        query: { text: 'what time is it' },
        heard: 'It is noon.',
        interrupted: false,
        failed: new Error('service unavailable'),
        endedAt: 5,
      },
    ]);
    expect(r.earcons.played).toEqual(['thinking', 'error']);
  });

  it("a turn begun from the recording that fails before a word: recorded all the same, named by the user's words once transcribed", () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ hot, expectObservable }) => {
      const text = hot('------w|', { w: 'turn on the light' });
      const r = turning(() => scheduler.now(), hot('--#', undefined, new Error('no reply')), { text }, '');
      expectObservable(r.events).toBe('t-l---(T|)');
      return r;
    });
    expect(r.turns).toMatchObject([{ query: { text: 'turn on the light' }, failed: new Error('no reply'), heard: '' }]);
    expect(r.earcons.played).toEqual(['thinking', 'error']);
  });

  it('the player failing under the reply fails the turn: heard is only what played before it failed', () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ hot, expectObservable }) => {
      const r = turning(() => scheduler.now(), hot('-a------b|'));
      hot('------d').subscribe(() => r.player.die('pacat exited'));
      expectObservable(r.events).toBe('t(sy)-(lT|)');
      return r;
    });
    expect(r.turns).toMatchObject([{ heard: 'One two', interrupted: false }]);
    expect(r.turns[0]?.failed).toBeInstanceOf(PlaybackError);
    expect(r.earcons.played).toEqual(['thinking', 'error']);
    expect(r.player.stops).toBe(1);
  });

  it('a held turn thinks only once confirmed; one cut before it was confirmed ends without a trace', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const confirmed = turning(() => scheduler.now(), hot('-----c-----|'), {
        start: hot('---s', { s: transcript('what time is it') }),
      });
      expectObservable(confirmed.events).toBe('---t-(sy)--(lT|)');
    });
    const unconfirmed = testScheduler();
    const r = unconfirmed.run(({ hot, expectObservable }) => {
      const r = turning(() => unconfirmed.now(), NEVER, { start: NEVER, cut: hot('---r', { r: 'retracted' }) });
      expectObservable(r.events).toBe('---|');
      return r;
    });
    expect(r.turns).toEqual([]);
    expect(r.earcons.played).toEqual([]);
    expect(r.player.stops).toBe(0);
  });
});
