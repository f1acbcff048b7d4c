import { describe, expect, it } from 'vitest';
import {
  EMPTY,
  NEVER,
  concat,
  defer,
  delayWhen,
  ignoreElements,
  map,
  merge,
  take,
  takeUntil,
  tap,
  timer,
  type Observable,
} from 'rxjs';
import type { ColdObservable } from 'rxjs/internal/testing/ColdObservable';
import type { Query, Transcript } from '../../../src/dialog/turn.js';
import type { GateEvent, TurnEvent } from '../../../src/pipeline/events.js';
import { takeTurns, type TakeTurnsOptions, type TurnControl } from '../../../src/pipeline/take-turns.js';
import { testScheduler } from '../../helpers/marbles.js';
import { transcript } from '../../helpers/turns.js';

/** The gate let through utterance `id` saying `text`: a guess at a pause when `tentative`, its recording when `audio`. */
function query(id: number, text: string, how: { tentative?: boolean; audio?: boolean } = {}): GateEvent {
  const heard: Transcript = { ...transcript(text), utteranceId: id, tentative: how.tentative ?? false };
  const asked: Query = { text, transcript: heard, ...(how.audio ? { audio: 'data:audio/wav;base64,' } : {}) };
  return { type: 'query', query: asked };
}

/**
 * Turns as the speaking half runs them: the reply scripted for the query's text is requested at
 * once, and sounds (`t` for thinking, then a letter per sentence) once the turn may sound. A cut
 * ends the turn `windDownMs` later (the player stopping). `told` is what each turn was told.
 */
function answering(replies: Record<string, ColdObservable<string>>, windDownMs = 0) {
  const told: string[] = [];
  const answer = (asked: Query, control: TurnControl): Observable<TurnEvent> => {
    const reply = replies[asked.text] as ColdObservable<string>;
    const cut = control.cut.pipe(tap((why) => told.push(`${asked.text}: cut by ${why}`)));
    if (asked.audio) control.text.subscribe((words) => told.push(`${asked.text}: heard as "${words}"`));
    if (control.droppedReplies > 0) told.push(`${asked.text}: ${control.droppedReplies} dropped before`);
    let wasCut = false;
    const sounding = merge(
      control.start.pipe(
        take(1),
        map((): TurnEvent => ({ type: 'state', state: 'thinking' })),
      ),
      reply.pipe(
        delayWhen(() => control.start),
        map((text): TurnEvent => ({ type: 'saying', sentence: { index: 0, text } })),
      ),
    ).pipe(takeUntil(cut.pipe(tap(() => (wasCut = true)))));
    return concat(
      sounding,
      defer(() => (wasCut ? timer(windDownMs).pipe(ignoreElements()) : EMPTY)),
    );
  };
  return { answer, told };
}

/** What the user hears of the turns: `t` as each begins to sound, then its sentences. */
const heard = (events: Observable<TurnEvent>): Observable<string> =>
  events.pipe(map((event) => (event.type === 'saying' ? event.sentence.text : 't')));

function options(over: Partial<TakeTurnsOptions> = {}): TakeTurnsOptions {
  return { interruptions: NEVER, queue: false, shutdown: NEVER, retractions: NEVER, texts: NEVER, ...over };
}

describe('takeTurns', () => {
  it('a new query cuts the turn under way at once, and is answered as soon as the cut turn has ended', () => {
    const told = testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { one: cold('-a-b-c-d|'), two: cold('-x|') };
      const { answer, told } = answering(replies, 2);
      const verdicts = hot('-1---2------|', { 1: query(1, 'one'), 2: query(2, 'two') });
      expectObservable(heard(verdicts.pipe(takeTurns(answer, options())))).toBe('-ta-b--tx---|');
      // Cut at 5: the first reply is let go at once; the turn winds down until 7, and only then
      // is the second reply requested.
      expectSubscriptions(replies.one.subscriptions).toBe('-^---!');
      expectSubscriptions(replies.two.subscriptions).toBe('-------^-!');
      return told;
    });
    expect(told).toEqual(['one: cut by query']);
  });

  it.each([
    ['the user talking over hark', 'speech', { interruptions: 'i' }],
    ['a stop phrase', 'stop', { verdicts: 's' }],
    ['the stop button', 'control', { stops: 'b' }],
  ] as const)('%s cuts the turn under way, saying so', (_, why, by) => {
    const told = testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const one = cold('-a-b-c|');
      const { answer, told } = answering({ one });
      const at = (marble: string | undefined): string => (marble ? `-----${marble}` : '');
      const stop: GateEvent = { type: 'stop', transcript: transcript('stop') };
      const verdicts = hot(`-1---${'verdicts' in by ? by.verdicts : '-'}--|`, { 1: query(1, 'one'), s: stop });
      const turns = verdicts.pipe(
        takeTurns(
          answer,
          options({
            interruptions: hot(at('interruptions' in by ? by.interruptions : undefined)),
            stops: hot(at('stops' in by ? by.stops : undefined)),
          }),
        ),
      );
      expectObservable(heard(turns)).toBe('-ta-b---|');
      expectSubscriptions(one.subscriptions).toBe('-^---!');
      return told;
    });
    expect(told).toEqual([`one: cut by ${why}`]);
  });

  it('queued input: the next query waits for the turn under way, and nothing the user says cuts it', () => {
    const told = testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { one: cold('-a-b-c|'), two: cold('-x|') };
      const { answer, told } = answering(replies);
      const verdicts = hot<GateEvent>('-1-s2-----|', {
        1: query(1, 'one'),
        2: query(2, 'two'),
        s: { type: 'stop', transcript: transcript('stop') },
      });
      const turns = verdicts.pipe(takeTurns(answer, options({ queue: true, interruptions: hot('--i') })));
      expectObservable(heard(turns)).toBe('-ta-b-ctx-|');
      expectSubscriptions(replies.one.subscriptions).toBe('-^-----!');
      expectSubscriptions(replies.two.subscriptions).toBe('-------^-!');
      return told;
    });
    expect(told).toEqual([]);
  });

  it('shutdown cuts the turn under way, and no query after it is answered', () => {
    const told = testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { one: cold('-a-b-c|'), two: cold('-x|') };
      const { answer, told } = answering(replies);
      const verdicts = hot('-1-----2--|', { 1: query(1, 'one'), 2: query(2, 'two') });
      const turns = verdicts.pipe(takeTurns(answer, options({ shutdown: hot('----s') })));
      expectObservable(heard(turns)).toBe('-ta-|');
      expectSubscriptions(replies.one.subscriptions).toBe('-^--!');
      expectSubscriptions(replies.two.subscriptions).toBe([]);
      return told;
    });
    expect(told).toEqual(['one: cut by shutdown']);
  });

  it('a guess at a pause is answered at once but sounds only when the utterance is confirmed, which is no new query', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { one: cold('-a-b|') };
      const { answer } = answering(replies);
      const verdicts = hot('-g---c-------|', { g: query(1, 'one', { tentative: true }), c: query(1, 'one') });
      expectObservable(heard(verdicts.pipe(takeTurns(answer, options())))).toBe('-----(tab)---|');
      expectSubscriptions(replies.one.subscriptions).toBe('-^---!');
    });
  });

  it('a guess whose reply has ended before the utterance is confirmed: the confirmation ends that turn and asks nothing again', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      // The reply (or its failure) is all in by 3; confirmed at 5, the held turn sounds and ends then.
      const replies = { one: cold('-a|') };
      const { answer } = answering(replies);
      const verdicts = hot('-g---c-------|', { g: query(1, 'one', { tentative: true }), c: query(1, 'one') });
      expectObservable(heard(verdicts.pipe(takeTurns(answer, options())))).toBe('-----(ta)----|');
      expectSubscriptions(replies.one.subscriptions).toBe('-^-!');
    });
  });

  it('a guess the user spoke past is dropped with its request; the turn for the whole utterance counts it as wasted', () => {
    const told = testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { one: cold('-a-b|'), 'one more': cold('-x|') };
      const { answer, told } = answering(replies);
      const verdicts = hot('-g-------c--|', { g: query(1, 'one', { tentative: true }), c: query(1, 'one more') });
      const turns = verdicts.pipe(takeTurns(answer, options({ retractions: hot('---1', { 1: 1 }) })));
      expectObservable(heard(turns)).toBe('---------tx-|');
      expectSubscriptions(replies.one.subscriptions).toBe('-^-!');
      return told;
    });
    expect(told).toEqual(['one: cut by retracted', 'one more: 1 dropped before']);
  });

  it('a guess still held when the input ends is dropped, and the turns end', () => {
    const told = testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { one: cold('-a-b|') };
      const { answer, told } = answering(replies);
      const verdicts = hot('-g---|', { g: query(1, 'one', { tentative: true }) });
      expectObservable(heard(verdicts.pipe(takeTurns(answer, options())))).toBe('-----|');
      expectSubscriptions(replies.one.subscriptions).toBe('-^---!');
      return told;
    });
    expect(told).toEqual(['one: cut by retracted']);
  });

  it('a guess whose utterance the gate then refuses, or heard as nothing, is dropped at once', () => {
    const told = testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { one: cold('-a-b|'), two: cold('-x-------|') };
      const { answer, told } = answering(replies);
      const refused: GateEvent = { type: 'ignored', reason: 'not for hark', transcript: transcript('one') };
      const verdicts = hot('-g--r--h-------|', {
        g: query(1, 'one', { tentative: true }),
        r: { ...refused, transcript: { ...refused.transcript, utteranceId: 1 } } as GateEvent,
        h: query(2, 'two', { tentative: true }),
      });
      const texts = hot('-----------e', { e: { utteranceId: 2, text: '' } });
      expectObservable(heard(verdicts.pipe(takeTurns(answer, options({ texts }))))).toBe('---------------|');
      expectSubscriptions(replies.one.subscriptions).toBe('-^--!');
      expectSubscriptions(replies.two.subscriptions).toBe('-------^---!');
      return told;
    });
    expect(told).toEqual(['one: cut by retracted', 'two: cut by retracted']);
  });

  it('a guess while a turn is under way starts nothing', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { one: cold('-a-b-c|'), guess: cold('-x|') };
      const { answer } = answering(replies);
      const verdicts = hot('-1-g-----|', { 1: query(1, 'one'), g: query(2, 'guess', { tentative: true }) });
      expectObservable(heard(verdicts.pipe(takeTurns(answer, options())))).toBe('-ta-b-c--|');
      expectSubscriptions(replies.guess.subscriptions).toBe([]);
    });
  });

  it('a turn begun from the recording starts at once, is told its words once transcribed, and that transcript is no new query', () => {
    const told = testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { recording: cold('-a-----b|'), 'turn on the light': cold('-x|') };
      const { answer, told } = answering(replies);
      const verdicts = hot('-r-----c---|', {
        r: query(1, 'recording', { audio: true }),
        c: query(1, 'turn on the light'),
      });
      const texts = hot('------w', { w: { utteranceId: 1, text: 'turn on the light' } });
      expectObservable(heard(verdicts.pipe(takeTurns(answer, options({ texts }))))).toBe('-ta-----b--|');
      expectSubscriptions(replies['turn on the light'].subscriptions).toBe([]);
      return told;
    });
    expect(told).toEqual(['recording: heard as "turn on the light"']);
  });

  it('the transcript of a recording already answered is no new query, even once its turn has ended', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const replies = { recording: cold('-a|'), 'turn on the light': cold('-x|') };
      const { answer } = answering(replies);
      const verdicts = hot('-r-----c---|', {
        r: query(1, 'recording', { audio: true }),
        c: query(1, 'turn on the light'),
      });
      expectObservable(heard(verdicts.pipe(takeTurns(answer, options())))).toBe('-ta--------|');
      expectSubscriptions(replies['turn on the light'].subscriptions).toBe([]);
    });
  });
});
