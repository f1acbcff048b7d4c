import { filter, map, withLatestFrom, type Observable, type OperatorFunction } from 'rxjs';
import type { Conversation } from '../dialog/conversation.js';
import { admit, type GatePolicy } from '../dialog/gate.js';
import { judgeTurnEnd } from '../dialog/turn-end.js';
import type { AssistantState } from '../dialog/turn.js';
import { type GateEvent, type TranscriptEvent, ofType } from './events.js';

/** Transcripts → the gate's verdict on each, given what hark is doing and what the conversation remembers. */
export function admitTranscripts(
  policy: GatePolicy,
  state: Observable<AssistantState>,
  conversation: Observable<Conversation>,
  now: () => number,
): OperatorFunction<TranscriptEvent, GateEvent> {
  return (events) =>
    events.pipe(
      ofType('transcript'),
      withLatestFrom(state, conversation),
      map(([{ transcript }, current, remembered]) => admit(transcript, current, remembered, now(), policy)),
      // A guess at a pause may start a held reply, unless its words show the user has not
      // finished ("add eggs and"); anything else waits for the confirmed transcript.
      filter((verdict) =>
        verdict.type === 'query'
          ? !verdict.query.transcript.tentative || judgeTurnEnd(verdict.query.transcript.text) !== 'incomplete'
          : !('transcript' in verdict && verdict.transcript.tentative),
      ),
    );
}
