import { filter, map, type OperatorFunction } from 'rxjs';
import { pcmToWav } from '../audio/wav-header.js';
import { ofType, type GateEvent, type ListenEvent } from './events.js';

/**
 * Utterances → queries made of the recording itself, for a chat model that hears: asked the
 * moment the user stops, without waiting for the transcript (which names the turn when it comes).
 * A monologue longer than one request is left to its transcript.
 */
export function queryRecordings(now: () => number): OperatorFunction<ListenEvent, GateEvent> {
  return (events) =>
    events.pipe(
      ofType('utterance'),
      filter(({ utterance }) => utterance.final && utterance.part === 0),
      map(({ utterance }): GateEvent => {
        const at = now();
        const wav = pcmToWav(utterance.samples, utterance.sampleRateHz);
        return {
          type: 'query',
          query: {
            text: '',
            audio: `data:audio/wav;base64,${wav.toString('base64')}`,
            transcript: {
              utteranceId: utterance.id,
              text: '',
              parts: 1,
              audioMs: (utterance.samples.length / utterance.sampleRateHz) * 1000,
              speechEndedAt: utterance.speechEndedAt,
              endpointedAt: at,
              transcriptionRequestAt: at,
              transcriptAt: at,
              overlapped: utterance.overlapped,
              tentative: false,
              droppedGuesses: 0,
            },
          },
        };
      }),
    );
}
