import { distinctUntilChanged, scan, skip, startWith, type OperatorFunction } from 'rxjs';
import type { ListenEvent } from './events.js';

/**
 * Is the user speaking, in the sense that counts for barge-in: true once a stretch of speech has
 * lasted `minSpeechMs`, false again when it ends (as an utterance, or as a blip). Emits changes only.
 */
export function userSpeaking(minSpeechMs: number): OperatorFunction<ListenEvent, boolean> {
  return (events) =>
    events.pipe(
      scan((speaking, event) => {
        if (event.type === 'speech') return speaking || event.durationMs >= minSpeechMs;
        if (event.type === 'discarded') return false;
        return event.utterance.final ? false : speaking;
      }, false),
      startWith(false),
      distinctUntilChanged(),
      skip(1),
    );
}
