import { describe, expect, it } from 'vitest';
import { NEVER, Subject, map, merge, subscribeOn, type Observable } from 'rxjs';
import type { Transcript } from '../../../src/dialog/turn.js';
import type { GateEvent, TurnEvent } from '../../../src/pipeline/events.js';
import { takeTurns, type TurnControl } from '../../../src/pipeline/take-turns.js';
import { immediateScheduler } from '../../../src/system/immediate-scheduler.js';

const checkPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function query(tentative: boolean): GateEvent {
  const transcript: Transcript = {
    utteranceId: 7,
    text: 'What time is it?',
    parts: 1,
    audioMs: 1000,
    speechEndedAt: 0,
    endpointedAt: 0,
    transcriptionRequestAt: 0,
    transcriptAt: 0,
    overlapped: false,
    tentative,
    droppedGuesses: 0,
  };
  return { type: 'query', query: { text: transcript.text, transcript } };
}

/**
 * A turn that, as the real one does, sets itself up at the next check phase, and then tells
 * when it may start to sound (thinking) and when it was cut (listening again).
 */
const lateTurn = (_: unknown, control: TurnControl): Observable<TurnEvent> =>
  merge(
    control.start.pipe(map((): TurnEvent => ({ type: 'state', state: 'thinking' }))),
    control.cut.pipe(map((): TurnEvent => ({ type: 'state', state: 'listening' }))),
  ).pipe(subscribeOn(immediateScheduler));

function run() {
  const verdicts = new Subject<GateEvent>();
  const retractions = new Subject<number>();
  const events: TurnEvent[] = [];
  verdicts
    .pipe(takeTurns(lateTurn, { interruptions: NEVER, queue: false, shutdown: NEVER, retractions, texts: NEVER }))
    .subscribe((event) => events.push(event));
  return { verdicts, retractions, events };
}

describe('takeTurns', () => {
  it('starts a held reply whose confirmation came before the turn had set itself up', async () => {
    const { verdicts, events } = run();
    verdicts.next(query(true));
    verdicts.next(query(false));
    await checkPhase();
    expect(events).toEqual([{ type: 'state', state: 'thinking' }]);
  });

  it('drops a held reply whose guess was retracted before the turn had set itself up', async () => {
    const { verdicts, retractions, events } = run();
    verdicts.next(query(true));
    retractions.next(7);
    await checkPhase();
    expect(events).toEqual([{ type: 'state', state: 'listening' }]);
  });
});
