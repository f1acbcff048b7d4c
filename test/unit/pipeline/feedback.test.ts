import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  conversationFeedback,
  heardStateFeedback,
  idleFeedback,
  loopStore,
  segmenterFeedback,
  wakeGateFeedback,
} from '../../../src/pipeline/feedback.js';

const POLICY = { maxTurns: 10, maxChars: 10_000, followUpMs: 8000 };

/** Every value a reader is told, as it is told it. */
function told<T>(values: Observable<T>): T[] {
  const seen: T[] = [];
  values.subscribe((value) => seen.push(value));
  return seen;
}

describe("the voice loop's feedback", () => {
  it('tells a reader that comes late the state as it is, and folds each event with when it came', () => {
    let clock = 1000;
    const { state$, dispatch } = loopStore(POLICY, () => clock);
    dispatch({ type: 'wake', phrase: 'hey_jarvis' });
    clock = 2000;
    expect(told(conversationFeedback(state$)).map((c) => c.followUpUntil)).toEqual([1000 + POLICY.followUpMs]);
  });

  it('a ring starting as hark goes idle makes hark busy for the readers told after it', () => {
    const { state$, dispatch } = loopStore(POLICY, () => 0);
    dispatch({ type: 'state', state: 'thinking' });
    let rang = false;
    idleFeedback(state$).subscribe((idle) => {
      if (!idle || rang) return;
      rang = true;
      dispatch({ type: 'sounding', on: true });
    });
    const notices = told(idleFeedback(state$));
    const hearing = told(heardStateFeedback(state$));
    dispatch({ type: 'state', state: 'listening' });
    expect(rang).toBe(true);
    // A notice waiting for hark to be idle must not start over the ring.
    expect(notices.at(-1)).toBe(false);
    expect(hearing.at(-1)).toBe('speaking');
  });

  it("hark's own voice raises the segmenter's threshold; half-duplex, nothing is heard while it speaks", () => {
    const { state$, dispatch } = loopStore(POLICY, () => 0);
    const full = told(segmenterFeedback(state$, true));
    const half = told(segmenterFeedback(state$, false));
    dispatch({ type: 'state', state: 'speaking' });
    expect(full.at(-1)).toMatchObject({ speaking: true, listening: true });
    expect(half.at(-1)).toMatchObject({ speaking: true, listening: false });
    dispatch({ type: 'endpoint', endpoint: { utteranceId: 2, silenceMs: 250 } });
    expect(full.at(-1)?.endpoint).toEqual({ utteranceId: 2, silenceMs: 250 });
  });

  it('the wake gate is open in the follow-up window after a lone wake word, and shut once it has passed', () => {
    let clock = 1000;
    const { state$, dispatch } = loopStore(POLICY, () => clock);
    const gate = told(wakeGateFeedback(heardStateFeedback(state$), conversationFeedback(state$), () => clock));
    expect(gate.at(-1)).toEqual({ state: 'listening', followUp: false });
    dispatch({ type: 'wake', phrase: 'hey_jarvis' });
    expect(gate.at(-1)).toEqual({ state: 'listening', followUp: true });
    clock = 1000 + POLICY.followUpMs;
    dispatch({ type: 'state', state: 'thinking' });
    expect(gate.at(-1)).toEqual({ state: 'thinking', followUp: false });
  });
});
