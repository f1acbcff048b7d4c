import { EMPTY, catchError, concatMap, defer, of, take, type Observable, type OperatorFunction } from 'rxjs';
import { pcmToWav } from '../audio/wav-header.js';
import type { Utterance } from '../listen/speech-events.js';
import { joinTranscripts, promptTail } from '../listen/transcript.js';
import type { Logger } from '../system/logger.js';
import type { TranscriptEvent } from './events.js';
import type { Transcriber } from './ports.js';

interface Pending {
  texts: string[];
  failed: boolean;
  audioMs: number;
  overlapped: boolean;
}

/**
 * Utterances → transcripts, in order. Each part of a long monologue is transcribed as it
 * arrives, with the tail of what came before as `prompt`; the final part completes the
 * transcript. A failed transcription becomes an event: the utterance is reported lost and
 * listening goes on.
 */
export function transcribeUtterances(
  transcriber: Transcriber,
  logger: Logger,
  now: () => number,
): OperatorFunction<Utterance, TranscriptEvent> {
  return (utterances) =>
    defer(() => {
      const pending = new Map<number, Pending>();
      return utterances.pipe(
        concatMap((utterance) =>
          defer((): Observable<TranscriptEvent> => {
            const endpointedAt = now();
            const state = pending.get(utterance.id) ?? { texts: [], failed: false, audioMs: 0, overlapped: false };
            pending.set(utterance.id, state);
            state.audioMs += (utterance.samples.length / utterance.sampleRateHz) * 1000;
            state.overlapped ||= utterance.overlapped;
            const finish = (): void => void (utterance.final && pending.delete(utterance.id));
            if (state.failed) {
              finish();
              return EMPTY;
            }
            const previous = joinTranscripts(state.texts);
            const wav = pcmToWav(utterance.samples, utterance.sampleRateHz);
            const transcriptionRequestAt = now();
            return transcriber.transcribe(wav, previous ? promptTail(previous) : undefined).pipe(
              take(1),
              concatMap((result): Observable<TranscriptEvent> => {
                state.texts.push(result.text);
                logger.debug('transcript.part', { utterance: utterance.id, part: utterance.part, text: result.text });
                if (!utterance.final) return EMPTY;
                finish();
                const text = joinTranscripts(state.texts);
                if (!/[\p{L}\p{N}]/u.test(text)) {
                  return of({ type: 'empty', utteranceId: utterance.id, audioMs: state.audioMs });
                }
                const transcript = {
                  utteranceId: utterance.id,
                  text,
                  parts: state.texts.length,
                  audioMs: state.audioMs,
                  speechEndedAt: utterance.speechEndedAt,
                  endpointedAt,
                  transcriptionRequestAt,
                  transcriptAt: now(),
                  overlapped: state.overlapped,
                };
                return of({ type: 'transcript', transcript });
              }),
              catchError((error: unknown) => {
                state.failed = true;
                finish();
                const failure = error instanceof Error ? error : new Error(String(error));
                return of<TranscriptEvent>({ type: 'transcription-failed', utteranceId: utterance.id, error: failure });
              }),
            );
          }),
        ),
      );
    });
}
