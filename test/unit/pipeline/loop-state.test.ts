import { describe, expect, it } from 'vitest';
import { ASKED_FOR_THE_HOME, INTERRUPTED_MARK } from '../../../src/dialog/conversation.js';
import type { AssistantState } from '../../../src/dialog/turn.js';
import {
  heardState,
  isIdle,
  newLoopState,
  reduceLoop,
  type LoopEvent,
  type LoopState,
} from '../../../src/pipeline/loop-state.js';
import type { Notice } from '../../../src/pipeline/ports.js';
import { transcript, turnEndingAt } from '../../helpers/turns.js';

const POLICY = { maxTurns: 10, maxChars: 10_000, followUpMs: 8000 };
const reduce = reduceLoop(POLICY);

/** The state after each event, folded in at the time given (ms). */
function fold(events: [LoopEvent, number][], from: LoopState = newLoopState()): LoopState {
  return events.reduce((state, [event, at]) => reduce(state, { event, at }), from);
}

const doing = (state: AssistantState): LoopEvent => ({ type: 'state', state });
const sounding = (on: boolean): LoopEvent => ({ type: 'sounding', on });
const QUESTION: Notice = { id: 'n1', kind: 'ask', text: 'Shall I close the blinds?', arrivedAt: 0 };

describe("the voice loop's state", () => {
  it('starts listening and idle, remembering nothing', () => {
    const start = newLoopState();
    expect(heardState(start)).toBe('listening');
    expect(isIdle(start)).toBe(true);
    expect(start.endpoint).toBeUndefined();
    expect(start.conversation.messages).toEqual([]);
  });

  it('follows a turn from thinking to speaking, and a barge-in returns it to listening, remembering what was heard', () => {
    const speaking = fold([
      [doing('thinking'), 100],
      [doing('speaking'), 200],
      [{ type: 'saying', sentence: { index: 0, text: 'Noon.' } }, 200],
    ]);
    expect(heardState(speaking)).toBe('speaking');
    expect(isIdle(speaking)).toBe(false);
    const cut = fold(
      [
        [{ type: 'turn', turn: turnEndingAt(900, 'speech', 'Noon.') }, 900],
        [doing('listening'), 900],
      ],
      speaking,
    );
    expect(heardState(cut)).toBe('listening');
    expect(isIdle(cut)).toBe(true);
    expect(cut.conversation.messages.at(-1)).toEqual({ role: 'assistant', text: `Noon.${INTERRUPTED_MARK}` });
    expect(cut.conversation.interruptedAt).toBe(900);
    // Talked over, hark opens no follow-up window: the next question needs the wake word.
    expect(cut.conversation.followUpUntil).toBe(-Infinity);
  });

  it('remembers a reply heard to the end and opens the follow-up window from its end', () => {
    const done = fold([
      [doing('speaking'), 100],
      [{ type: 'turn', turn: turnEndingAt(2000) }, 2000],
      [doing('listening'), 2000],
    ]);
    expect(done.conversation.messages.map((m) => m.text)).toEqual(['what time is it?', 'Noon. Lunch time.']);
    expect(done.conversation.followUpUntil).toBe(2000 + POLICY.followUpMs);
  });

  it('takes a ring sounding for hark speaking, and hark is idle again once it stops', () => {
    const ringing = fold([[sounding(true), 100]]);
    expect(heardState(ringing)).toBe('speaking');
    expect(isIdle(ringing)).toBe(false);
    expect(ringing.doing).toBe('listening');
    const stopped = fold([[sounding(false), 500]], ringing);
    expect(heardState(stopped)).toBe('listening');
    expect(isIdle(stopped)).toBe(true);
  });

  it('keeps what a turn says hark is doing while something else sounds', () => {
    const state = fold([
      [doing('thinking'), 100],
      [sounding(true), 150],
    ]);
    expect(heardState(state)).toBe('thinking');
    expect(isIdle(fold([[doing('listening'), 300]], state))).toBe(false);
  });

  it('a wake word opens the follow-up window from when it came', () => {
    const woken = fold([[{ type: 'wake', phrase: 'hey_jarvis' }, 1000]]);
    expect(woken.conversation.followUpUntil).toBe(1000 + POLICY.followUpMs);
  });

  it('a stop phrase drops the words a cut query would have carried into the next', () => {
    const cutEarly = fold([[{ type: 'turn', turn: turnEndingAt(1000, 'speech', '') }, 1000]]);
    expect(cutEarly.conversation.carried).toBe('what time is it?');
    const stopped = fold([[{ type: 'stop', transcript: transcript('Stop.') }, 1200]], cutEarly);
    expect(stopped.conversation.carried).toBe('');
    expect(stopped.conversation.interruptedAt).toBe(-Infinity);
  });

  it('remembers the sentences of the latest reply as hark says them, afresh for each reply', () => {
    const say = (index: number, text: string): [LoopEvent, number] => [
      { type: 'saying', sentence: { index, text } },
      0,
    ];
    expect(fold([say(0, 'One.'), say(1, 'Two.')]).conversation.said).toEqual(['One.', 'Two.']);
    expect(fold([say(0, 'One.'), say(1, 'Two.'), say(0, 'Three.')]).conversation.said).toEqual(['Three.']);
  });

  it('a question the home asks opens the window at once, and once said joins the history', () => {
    const asking = fold([[{ type: 'notice', phase: 'started', notice: QUESTION }, 1000]]);
    expect(asking.conversation.followUpUntil).toBe(Infinity);
    expect(asking.conversation.said).toEqual([QUESTION.text]);
    const timings = { speechRequest: 1000 };
    const asked = fold(
      [[{ type: 'notice', phase: 'spoken', notice: QUESTION, timings, playedMs: 1500 }, 2500]],
      asking,
    );
    expect(asked.conversation.messages).toEqual([
      { role: 'user', text: ASKED_FOR_THE_HOME },
      { role: 'assistant', text: QUESTION.text },
    ]);
    expect(asked.conversation.followUpUntil).toBe(2500 + POLICY.followUpMs);
  });

  it('a question the user answered over was said; one cut by hark stopping leaves no trace', () => {
    const asking = fold([[{ type: 'notice', phase: 'started', notice: QUESTION }, 1000]]);
    const answered = fold([[{ type: 'notice', phase: 'stopped', notice: QUESTION, by: 'query' }, 1800]], asking);
    expect(answered.conversation.messages.at(-1)).toEqual({ role: 'assistant', text: QUESTION.text });
    const shutDown = fold([[{ type: 'notice', phase: 'stopped', notice: QUESTION, by: 'shutdown' }, 1800]], asking);
    expect(shutDown.conversation.messages).toEqual([]);
    expect(shutDown.conversation.followUpUntil).toBe(1800);
  });

  it('an announcement leaves the history and the window as they were', () => {
    const announcement: Notice = { ...QUESTION, kind: 'announce', text: 'The washing is done.' };
    const before = fold([[{ type: 'turn', turn: turnEndingAt(100) }, 100]]);
    const after = fold(
      [
        [{ type: 'notice', phase: 'started', notice: announcement }, 200],
        [
          { type: 'notice', phase: 'spoken', notice: announcement, timings: { speechRequest: 200 }, playedMs: 900 },
          1100,
        ],
      ],
      before,
    );
    expect(after.conversation.messages).toEqual(before.conversation.messages);
    expect(after.conversation.followUpUntil).toBe(before.conversation.followUpUntil);
  });

  it('keeps the pause decided for an utterance until the next decision', () => {
    const decided = fold([[{ type: 'endpoint', endpoint: { utteranceId: 3, silenceMs: 300 } }, 100]]);
    expect(decided.endpoint).toEqual({ utteranceId: 3, silenceMs: 300 });
    expect(fold([[doing('thinking'), 150]], decided).endpoint).toEqual({ utteranceId: 3, silenceMs: 300 });
    expect(fold([[{ type: 'endpoint', endpoint: undefined }, 200]], decided).endpoint).toBeUndefined();
  });

  it('never changes the state it is given', () => {
    const start = deepFreeze(fold([[{ type: 'turn', turn: turnEndingAt(100) }, 100]]));
    const events: [LoopEvent, number][] = [
      [doing('speaking'), 200],
      [sounding(true), 200],
      [{ type: 'saying', sentence: { index: 1, text: 'More.' } }, 200],
      [{ type: 'turn', turn: turnEndingAt(300) }, 300],
      [{ type: 'wake', phrase: 'hey_jarvis' }, 400],
      [{ type: 'notice', phase: 'spoken', notice: QUESTION, timings: { speechRequest: 0 }, playedMs: 1 }, 500],
      [{ type: 'endpoint', endpoint: { utteranceId: 1, silenceMs: 100 } }, 600],
    ];
    for (const [event, at] of events) expect(() => reduce(start, { event, at })).not.toThrow();
    expect(start.conversation.messages).toHaveLength(2);
  });
});

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
