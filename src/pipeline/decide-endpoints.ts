import { filter, map, type OperatorFunction } from 'rxjs';
import type { HarkConfig } from '../config/schema.js';
import { judgeTurnEnd } from '../dialog/turn-end.js';
import type { Endpoint } from '../listen/speech-events.js';
import { ofType, type TranscriptEvent } from './events.js';

/**
 * Guesses at a pause → how long that pause must last to end the turn, by what the words say: a
 * complete question ends it soon, an unfinished clause waits longer; undefined when the words
 * do not tell (the usual silence decides).
 */
export function decideEndpoints(
  settings: Pick<HarkConfig['endpoint'], 'completeMs' | 'incompleteMs'>,
): OperatorFunction<TranscriptEvent, Endpoint | undefined> {
  return (events) =>
    events.pipe(
      ofType('transcript'),
      filter(({ transcript }) => transcript.tentative),
      map(({ transcript }) => {
        const decided = judgeTurnEnd(transcript.text);
        if (decided === 'unsure') return undefined;
        const silenceMs = decided === 'complete' ? settings.completeMs : settings.incompleteMs;
        return { utteranceId: transcript.utteranceId, silenceMs };
      }),
    );
}
