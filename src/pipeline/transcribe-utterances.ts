import {
  EMPTY,
  Subject,
  catchError,
  concatMap,
  connect,
  defer,
  filter,
  finalize,
  map,
  merge,
  mergeMap,
  of,
  shareReplay,
  take,
  takeUntil,
  tap,
  withLatestFrom,
  type Observable,
  type OperatorFunction,
  type Subscription,
} from 'rxjs';
import { pcmToWav } from '../audio/wav-header.js';
import type { Transcript } from '../dialog/turn.js';
import type { Utterance } from '../listen/speech-events.js';
import { joinTranscripts, promptTail } from '../listen/transcript.js';
import type { Logger } from '../system/logger.js';
import { ofType, type ListenEvent, type TranscriptEvent } from './events.js';
import type { TranscribeResult, Transcriber } from './ports.js';
import { asError } from '../system/as-error.js';

/** A transcript with a letter or a digit in it: anything else is noise. */
const SPOKEN = /[\p{L}\p{N}]/u;

interface Pending {
  texts: string[];
  failed: boolean;
  audioMs: number;
  overlapped: boolean;
  /** Guesses made for it and dropped because the user went on. */
  dropped: number;
}

/** A transcription of the speech so far, started at a pause in case the user has finished. */
interface Guess {
  utterance: Utterance;
  result: Observable<TranscribeResult>;
  started: Subscription;
  dropped: Subject<void>;
  requestAt: number;
}

/**
 * Utterances → transcripts, in order. Each part of a long monologue is transcribed as it
 * arrives, with the tail of what came before as `prompt`; the final part completes the
 * transcript. When `guessing` allows, the speech so far is transcribed at a pause (a tentative
 * utterance) and given out as a tentative transcript; if the user goes on, that request is
 * dropped (its connection closed) and a retraction given out; if the utterance ends there, the
 * guess is the transcript, without a second request. At most one guess is in flight. A failed
 * transcription becomes an event: the utterance is reported lost and listening goes on. The
 * transcriber hears of each stretch of speech as it begins, to be ready when it ends.
 */
export function transcribeUtterances(
  transcriber: Transcriber,
  logger: Logger,
  now: () => number,
  guessing: Observable<boolean>,
): OperatorFunction<ListenEvent, TranscriptEvent> {
  return (events) =>
    defer(() => {
      const pending = new Map<number, Pending>();
      let guess: Guess | undefined;
      const stateOf = (id: number): Pending => {
        const state = pending.get(id) ?? { texts: [], failed: false, audioMs: 0, overlapped: false, dropped: 0 };
        pending.set(id, state);
        return state;
      };
      const drop = (): TranscriptEvent[] => {
        if (!guess) return [];
        const { utterance, started, dropped } = guess;
        guess = undefined;
        started.unsubscribe();
        dropped.next();
        stateOf(utterance.id).dropped++;
        return [{ type: 'retracted', utteranceId: utterance.id }];
      };
      const start = (utterance: Utterance): Observable<TranscriptEvent> => {
        const requestAt = now();
        const result = transcriber
          .transcribe(pcmToWav(utterance.samples, utterance.sampleRateHz), undefined)
          // Dropping the guess must close its connection: no subscriber left, no request.
          .pipe(take(1), shareReplay({ bufferSize: 1, refCount: true }));
        const dropped = new Subject<void>();
        guess = { utterance, result, dropped, requestAt, started: result.subscribe({ error: () => undefined }) };
        return result.pipe(
          filter(({ text }) => SPOKEN.test(text)),
          map((r): TranscriptEvent => ({
            type: 'transcript',
            transcript: transcriptOf(utterance, r.text, now, requestAt, true),
          })),
          takeUntil(dropped),
          catchError(() => EMPTY),
        );
      };
      const guesses = (event: ListenEvent, allowed: boolean): Observable<TranscriptEvent> => {
        if (event.type === 'speech' && guess?.utterance.id === event.id) return of(...drop());
        if (event.type !== 'tentative') return EMPTY;
        const retracted = drop();
        return allowed ? merge(of(...retracted), start(event.utterance)) : of(...retracted);
      };
      const final = (utterance: Utterance): Observable<TranscriptEvent> => {
        const endpointedAt = now();
        const state = stateOf(utterance.id);
        state.audioMs += (utterance.samples.length / utterance.sampleRateHz) * 1000;
        state.overlapped ||= utterance.overlapped;
        const finish = (): void => void (utterance.final && pending.delete(utterance.id));
        if (state.failed) {
          finish();
          return EMPTY;
        }
        const guessed = guess?.utterance.id === utterance.id ? guess : undefined;
        if (guessed) guess = undefined;
        const previous = joinTranscripts(state.texts);
        const requestAt = guessed?.requestAt ?? now();
        const request =
          guessed?.result.pipe(finalize(() => guessed.started.unsubscribe())) ??
          transcriber.transcribe(
            pcmToWav(utterance.samples, utterance.sampleRateHz),
            previous ? promptTail(previous) : undefined,
          );
        return request.pipe(
          take(1),
          concatMap((result): Observable<TranscriptEvent> => {
            state.texts.push(result.text);
            logger.debug('transcript.part', { utterance: utterance.id, part: utterance.part, text: result.text });
            if (!utterance.final) return EMPTY;
            finish();
            const text = joinTranscripts(state.texts);
            if (!SPOKEN.test(text)) return of({ type: 'empty', utteranceId: utterance.id, audioMs: state.audioMs });
            const transcript: Transcript = {
              ...transcriptOf(utterance, text, now, requestAt, false),
              parts: state.texts.length,
              audioMs: state.audioMs,
              overlapped: state.overlapped,
              endpointedAt,
              droppedGuesses: state.dropped,
            };
            return of({ type: 'transcript', transcript });
          }),
          catchError((error: unknown) => {
            state.failed = true;
            finish();
            const failure = asError(error);
            return of<TranscriptEvent>({ type: 'transcription-failed', utteranceId: utterance.id, error: failure });
          }),
        );
      };
      let prepared: number | undefined;
      return events.pipe(
        tap((event) => {
          if (event.type !== 'speech' || event.id === prepared) return;
          prepared = event.id;
          transcriber.prepare?.();
        }),
        connect((shared) =>
          merge(
            shared.pipe(
              withLatestFrom(guessing),
              mergeMap(([event, allowed]) => guesses(event, allowed)),
            ),
            shared.pipe(
              ofType('utterance'),
              concatMap(({ utterance }) => defer(() => final(utterance))),
            ),
          ),
        ),
      );
    });
}

function transcriptOf(
  utterance: Utterance,
  text: string,
  now: () => number,
  requestAt: number,
  tentative: boolean,
): Transcript {
  const at = now();
  return {
    utteranceId: utterance.id,
    text,
    parts: 1,
    audioMs: (utterance.samples.length / utterance.sampleRateHz) * 1000,
    speechEndedAt: utterance.speechEndedAt,
    endpointedAt: at,
    transcriptionRequestAt: requestAt,
    transcriptAt: at,
    overlapped: utterance.overlapped,
    tentative,
    droppedGuesses: 0,
  };
}
