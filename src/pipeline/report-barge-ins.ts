import { filter, map, startWith, withLatestFrom, type Observable, type OperatorFunction } from 'rxjs';
import { ofType, type ListenEvent, type TurnEvent } from './events.js';

/**
 * Turns cut short → barge-in events, timed from when the interrupting speech's first frame was
 * captured (the latest speech onset), with how much of the reply the user heard. A turn
 * cut by hark stopping or by a control (the status page's stop button) was no barge-in.
 */
export function reportBargeIns(listenEvents: Observable<ListenEvent>): OperatorFunction<TurnEvent, TurnEvent> {
  const onsets = listenEvents.pipe(ofType('speech'), startWith(undefined));
  return (turns) =>
    turns.pipe(
      ofType('turn'),
      filter(
        ({ turn }) => turn.interrupted !== false && turn.interrupted !== 'shutdown' && turn.interrupted !== 'control',
      ),
      withLatestFrom(onsets),
      map(([{ turn }, onset]): TurnEvent => ({
        type: 'barge-in',
        by: turn.interrupted || 'speech',
        onsetMs: Math.round(onset?.onsetMs ?? 0),
        onsetToStopMs:
          turn.stoppedAt === undefined || onset === undefined ? undefined : Math.round(turn.stoppedAt - onset.onsetAt),
        heardMs: turn.audioMs.played,
      })),
    );
}
