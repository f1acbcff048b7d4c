import {
  EMPTY,
  Observable,
  ReplaySubject,
  concatMap,
  connect,
  defer,
  filter,
  finalize,
  merge,
  of,
  takeUntil,
  tap,
  type OperatorFunction,
} from 'rxjs';
import type { Interruption, Query, Transcript } from '../dialog/turn.js';
import { ofType, type GateEvent, type TurnEvent } from './events.js';

export interface TakeTurnsOptions {
  /** The user talking over hark (already confirmed as an interruption). */
  interruptions: Observable<unknown>;
  /** Turns wait for each other and nothing but shutdown cuts them (input faster than real time). */
  queue: boolean;
  /** hark is stopping: the turn under way is cut and no other starts. */
  shutdown: Observable<unknown>;
  /** Told to stop speaking from outside the conversation (the status page): the turn under way is cut. */
  stops?: Observable<unknown> | undefined;
  /** Utterances whose tentative transcript no longer stands: a turn held for one is dropped. */
  retractions: Observable<number>;
  /** What each utterance was heard to say ('' when it could not be), for turns that began from its audio. */
  texts: Observable<{ utteranceId: number; text: string }>;
}

/** How the speaking half of one turn may be cut, when it may start to sound, and what was wasted before it. */
export interface TurnControl {
  cut: Observable<Interruption>;
  /** Gives the confirmed transcript when the turn may sound (at once unless the query was a guess). */
  start: Observable<Transcript>;
  /** Replies started for guesses of this utterance and dropped. */
  droppedReplies: number;
  /** What the user said, in words: at once, or (for a turn begun from the recording) when transcribed. */
  text: Observable<string>;
}

/**
 * Verdicts → turns, one at a time, in order. A turn is cut by the user talking over it, by the
 * next query, by a stop phrase or by shutdown; the next query starts once the cut turn has
 * ended. A query from a tentative transcript (a guess at a pause) starts a held turn while hark
 * is idle: its reply is requested and synthesized, but nothing sounds until the utterance is
 * confirmed; if the user goes on, the held turn is dropped with every request it made. A query
 * made from the recording itself (a model that hears) starts at once; the transcript that
 * follows only names it.
 */
export function takeTurns(
  answer: (query: Query, control: TurnControl) => Observable<TurnEvent>,
  options: TakeTurnsOptions,
): OperatorFunction<GateEvent, TurnEvent> {
  return connect((verdicts) => {
    /** The turn under way. */
    let running: Running | undefined;
    const droppedReplies = new Map<number, number>();
    /** Utterances answered from their recording, whose transcript is no new query. */
    const heardFromRecording = new Set<number>();
    /**
     * Utterances whose held turn a transcript confirmed, which is no new query either, though
     * confirming may have ended that turn (its reply was all in, or had failed) before the
     * transcript reaches the turns below.
     */
    const confirmedGuesses = new Set<number>();
    const isConfirmationOfHeld = (transcript: Transcript): boolean =>
      running?.follows === true && running.utteranceId === transcript.utteranceId;
    const cut = (reason: Interruption, applies?: (turn: Running) => boolean): void => {
      const turn = running;
      if (!turn || turn.cutBy || (applies && !applies(turn))) return;
      turn.cutBy = reason;
      turn.cut.next(reason);
      turn.cut.complete();
    };
    const confirm = (transcript: Transcript): void => {
      const turn = running;
      if (!turn?.start || turn.started) return;
      turn.started = true;
      // Told to the turn's stages at once, which may end the turn before this returns.
      turn.start.next(transcript);
      turn.start.complete();
    };
    /** A guess whose utterance ended otherwise (refused, or heard as nothing) can never sound. */
    const dropGuessOf = (utteranceId: number): void =>
      cut('retracted', (turn) => !turn.started && turn.utteranceId === utteranceId);
    const onVerdict = (verdict: GateEvent): void => {
      if (verdict.type === 'stop') {
        if (!options.queue) cut('stop');
        return;
      }
      if (verdict.type === 'ignored' && !verdict.transcript.tentative) dropGuessOf(verdict.transcript.utteranceId);
      if (verdict.type !== 'query' || verdict.query.transcript.tentative) return;
      if (isConfirmationOfHeld(verdict.query.transcript)) {
        if (running?.start) confirmedGuesses.add(verdict.query.transcript.utteranceId);
        confirm(verdict.query.transcript);
      } else if (!options.queue) cut('query');
    };
    const onText = (heard: { utteranceId: number; text: string }): void => {
      if (heard.text === '') dropGuessOf(heard.utteranceId);
      const text = running?.utteranceId === heard.utteranceId ? running.text : undefined;
      text?.next(heard.text);
      text?.complete();
    };
    // What confirms, cuts or names the turn under way, heard once for every turn (not built
    // anew on the way to each reply request) and before the turns themselves: a verdict cuts
    // the turn it ends before it is queued as the next.
    const listeners = merge(
      // Once the verdicts end (the input has), nothing is left to confirm a guess.
      verdicts.pipe(tap({ next: onVerdict, complete: () => cut('retracted', (turn) => !turn.started) })),
      options.shutdown.pipe(tap(() => cut('shutdown'))),
      (options.stops ?? EMPTY).pipe(tap(() => cut('control'))),
      options.retractions.pipe(
        tap((id) => cut('retracted', (turn) => turn.query.transcript.tentative && id === turn.utteranceId)),
      ),
      options.queue ? EMPTY : options.interruptions.pipe(tap(() => cut('speech'))),
      options.texts.pipe(tap(onText)),
    );
    const turns = verdicts.pipe(
      ofType('query'),
      takeUntil(options.shutdown),
      filter(({ query: { transcript } }) => {
        if (transcript.tentative) return running === undefined;
        if (heardFromRecording.delete(transcript.utteranceId)) return false;
        if (confirmedGuesses.delete(transcript.utteranceId)) return false;
        return !isConfirmationOfHeld(transcript);
      }),
      concatMap(({ query }) =>
        defer(() => {
          const { utteranceId, tentative } = query.transcript;
          if (query.audio) heardFromRecording.add(utteranceId);
          // Each may come at any time from the turn's start, and is told to its stages when they
          // subscribe (a moment later, once the reply request is out).
          const turn: Running = {
            query,
            utteranceId,
            follows: tentative || query.audio !== undefined,
            started: !tentative,
            cut: new ReplaySubject<Interruption>(1),
            start: tentative ? new ReplaySubject<Transcript>(1) : undefined,
            text: query.audio ? new ReplaySubject<string>(1) : undefined,
          };
          running = turn;
          const control: TurnControl = {
            cut: turn.cut,
            start: turn.start ?? of(query.transcript),
            text: turn.text ?? of(query.text),
            droppedReplies: droppedReplies.get(utteranceId) ?? 0,
          };
          return answer(query, control).pipe(
            finalize(() => {
              running = undefined;
              if (turn.started) droppedReplies.delete(utteranceId);
              else droppedReplies.set(utteranceId, control.droppedReplies + 1);
            }),
          );
        }),
      ),
    );
    return new Observable<TurnEvent>((subscriber) => {
      const listening = listeners.subscribe({ error: (error: unknown) => subscriber.error(error) });
      listening.add(turns.subscribe(subscriber));
      return listening;
    });
  });
}

/** The turn under way: what it answers, and what it has been told so far. */
interface Running {
  query: Query;
  utteranceId: number;
  /** A later transcript of its utterance is its confirmation (a guess) or its words (heard from the recording), not a new query. */
  follows: boolean;
  /** Confirmed, or never a guess. */
  started: boolean;
  cutBy?: Interruption;
  cut: ReplaySubject<Interruption>;
  /** A guess's confirmation, once it comes. */
  start: ReplaySubject<Transcript> | undefined;
  /** A turn begun from the recording: its words, once transcribed. */
  text: ReplaySubject<string> | undefined;
}
