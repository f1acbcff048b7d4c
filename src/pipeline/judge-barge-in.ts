import { concatMap, defer, of, withLatestFrom, type Observable, type OperatorFunction } from 'rxjs';
import { BargeInJudge, type BargeInPolicy } from '../dialog/barge-in.js';
import type { AssistantState } from '../dialog/turn.js';
import type { SegmenterEvent } from '../listen/speech-events.js';
import type { InterruptionEvent } from './events.js';

/** What the listener hears → pauses, resumes and confirmed interruptions of hark's reply (see BargeInJudge). */
export function judgeBargeIn(
  policy: BargeInPolicy,
  state: Observable<AssistantState>,
): OperatorFunction<SegmenterEvent, InterruptionEvent> {
  return (events) =>
    defer(() => {
      const judge = new BargeInJudge(policy);
      return events.pipe(
        withLatestFrom(state),
        concatMap(([event, hark]) => {
          const phase = judge.push(event, hark);
          if (!phase) return [];
          const atMs = event.type === 'speech' || event.type === 'silence' ? event.atMs : undefined;
          const utteranceId = 'id' in event ? event.id : event.utterance.id;
          return of<InterruptionEvent>({ type: 'interruption', phase, atMs, utteranceId });
        }),
      );
    });
}
