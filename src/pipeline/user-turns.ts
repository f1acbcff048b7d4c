import { EMPTY, catchError, concatMap, defer, map, of, take, type Observable, type OperatorFunction } from 'rxjs';
import type { Utterance } from '../listen/segmenter.js';
import { pcmToWav } from '../listen/transcribe-long.js';
import { joinTranscripts, promptTail } from '../listen/transcript.js';
import type { Logger } from '../system/logger.js';
import type { Transcriber } from './ports.js';

/** What the user said, as one turn, with the moments that latency is measured from. */
export interface UserTurn {
  utteranceId: number;
  text: string;
  /** Transcription requests made (more than one for speech longer than 30 s). */
  parts: number;
  /** When the end of speech was detected (monotonic ms). */
  endOfSpeechAt: number;
  /** When the last transcription request was handed to the client. */
  transcriptionRequestAt: number;
  transcriptAt: number;
  audioMs: number;
}

export type HeardEvent =
  | { type: 'user-turn'; turn: UserTurn }
  /** Speech that transcribed to nothing: never reaches the chat model. */
  | { type: 'empty'; utteranceId: number; audioMs: number }
  | { type: 'failed'; utteranceId: number; error: Error };

interface Pending {
  texts: string[];
  failed: boolean;
  audioMs: number;
}

/**
 * Utterances → user turns, in order. Each part of a long monologue is transcribed as it
 * arrives, with the tail of what came before as `prompt`; the final part completes the turn.
 * A failed transcription becomes an event (the turn is reported lost, listening goes on).
 */
export function transcribeUtterances(
  transcriber: Transcriber,
  logger: Logger,
  now: () => number = () => performance.now(),
): OperatorFunction<Utterance, HeardEvent> {
  const pending = new Map<number, Pending>();
  return concatMap((utterance) =>
    defer((): Observable<HeardEvent> => {
      const endOfSpeechAt = now();
      const state = pending.get(utterance.id) ?? { texts: [], failed: false, audioMs: 0 };
      pending.set(utterance.id, state);
      state.audioMs += (utterance.samples.length / utterance.sampleRateHz) * 1000;
      const finish = (): void => void (utterance.final && pending.delete(utterance.id));
      if (state.failed) {
        finish();
        return EMPTY;
      }
      const previous = joinTranscripts(state.texts);
      const wav = pcmToWav(utterance.samples, utterance.sampleRateHz);
      const prompt = previous ? promptTail(previous) : undefined;
      const transcriptionRequestAt = now();
      return transcriber.transcribe(wav, prompt).pipe(
        take(1),
        map((result): HeardEvent | undefined => {
          state.texts.push(result.text);
          logger.debug('transcript.part', { utterance: utterance.id, part: utterance.part, text: result.text });
          if (!utterance.final) return undefined;
          finish();
          const text = joinTranscripts(state.texts);
          if (!/[\p{L}\p{N}]/u.test(text)) return { type: 'empty', utteranceId: utterance.id, audioMs: state.audioMs };
          return {
            type: 'user-turn',
            turn: {
              utteranceId: utterance.id,
              text,
              parts: state.texts.length,
              endOfSpeechAt,
              transcriptionRequestAt,
              transcriptAt: now(),
              audioMs: state.audioMs,
            },
          };
        }),
        concatMap((event) => (event ? of(event) : EMPTY)),
        catchError((error: unknown) => {
          state.failed = true;
          finish();
          return of<HeardEvent>({ type: 'failed', utteranceId: utterance.id, error: error as Error });
        }),
      );
    }),
  );
}
