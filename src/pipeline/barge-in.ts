import { distinctUntilChanged, scan, shareReplay, skip, startWith, type Observable } from 'rxjs';
import type { SegmenterEvent } from '../listen/segmenter.js';

/**
 * Is the user speaking, in the sense that counts for barge-in: true once a stretch of speech
 * has lasted `minSpeechMs`, false again when it ends (as an utterance, or as a blip).
 * Replays its latest value, so a turn that starts while the user is talking sees it at once.
 */
export function userSpeaking(events: Observable<SegmenterEvent>, minSpeechMs: number): Observable<boolean> {
  return events.pipe(
    scan((speaking, event) => {
      if (event.type === 'speech') return speaking || event.durationMs >= minSpeechMs;
      if (event.type === 'discarded') return false;
      return event.utterance.final ? false : speaking;
    }, false),
    startWith(false),
    distinctUntilChanged(),
    skip(1),
    shareReplay({ bufferSize: 1, refCount: true }),
  );
}
