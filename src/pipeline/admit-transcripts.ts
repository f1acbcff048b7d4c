import { filter, map, scan, startWith, withLatestFrom, type Observable, type OperatorFunction } from 'rxjs';
import type { Conversation } from '../dialog/conversation.js';
import { admit, type GatePolicy } from '../dialog/gate.js';
import { judgeTurnEnd } from '../dialog/turn-end.js';
import type { AssistantState } from '../dialog/turn.js';
import { type GateEvent, type InterruptionEvent, type TranscriptEvent, ofType } from './events.js';

/** How many of the latest utterances judged no interruption are remembered: their transcripts come soon after. */
const DISMISSALS_KEPT = 8;

/**
 * Transcripts → the gate's verdict on each, given what hark is doing, what the conversation
 * remembers, which speech over hark's reply the barge-in judge dismissed, and the policy as it
 * stands when the transcript comes.
 */
export function admitTranscripts(
  policy: () => GatePolicy,
  state: Observable<AssistantState>,
  conversation: Observable<Conversation>,
  interruptions: Observable<InterruptionEvent>,
  now: () => number,
): OperatorFunction<TranscriptEvent, GateEvent> {
  return (events) =>
    events.pipe(
      ofType('transcript'),
      withLatestFrom(state, conversation, dismissals(interruptions)),
      map(([{ transcript }, current, remembered, dismissed]) =>
        admit(transcript, current, remembered, now(), policy(), dismissed.has(transcript.utteranceId)),
      ),
      // A guess at a pause may start a held reply, unless its words show the user has not
      // finished ("add eggs and"); anything else waits for the confirmed transcript.
      filter((verdict) =>
        verdict.type === 'query'
          ? !verdict.query.transcript.tentative || judgeTurnEnd(verdict.query.transcript.text) !== 'incomplete'
          : !('transcript' in verdict && verdict.transcript.tentative),
      ),
    );
}

/** The latest few utterances the barge-in judge dismissed (see BargeInJudge). */
function dismissals(interruptions: Observable<InterruptionEvent>): Observable<ReadonlySet<number>> {
  return interruptions.pipe(
    scan((dismissed: ReadonlySet<number>, { phase, utteranceId }) => {
      if (phase !== 'dismissed' || utteranceId === undefined) return dismissed;
      const next = new Set(dismissed).add(utteranceId);
      for (const oldest of next) {
        if (next.size <= DISMISSALS_KEPT) break;
        next.delete(oldest);
      }
      return next;
    }, new Set<number>()),
    startWith(new Set<number>()),
  );
}
