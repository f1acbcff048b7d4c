import {
  EMPTY,
  ReplaySubject,
  Subscription,
  concatMap,
  connectable,
  connect,
  defer,
  filter,
  finalize,
  map,
  merge,
  of,
  take,
  takeUntil,
  tap,
  type Connectable,
  type Observable,
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
    /** The turn under way, and whether a later transcript of its utterance is its confirmation or its words. */
    let running: { utteranceId: number; follows: boolean } | undefined;
    const droppedReplies = new Map<number, number>();
    /** Utterances answered from their recording, whose transcript is no new query. */
    const heardFromRecording = new Set<number>();
    const confirmations = verdicts.pipe(
      ofType('query'),
      filter(({ query }) => !query.transcript.tentative),
    );
    const isConfirmationOfHeld = (transcript: Transcript): boolean =>
      running?.follows === true && running.utteranceId === transcript.utteranceId;
    const cutFor = (query: Query): Observable<Interruption> => {
      const shutdown = options.shutdown.pipe(map((): Interruption => 'shutdown'));
      const stopped = (options.stops ?? EMPTY).pipe(map((): Interruption => 'control'));
      const retracted = options.retractions.pipe(
        filter((id) => query.transcript.tentative && id === query.transcript.utteranceId),
        map((): Interruption => 'retracted'),
      );
      if (options.queue) return merge(shutdown, stopped, retracted);
      const next = verdicts.pipe(
        filter(
          (verdict) =>
            verdict.type === 'stop' ||
            (verdict.type === 'query' &&
              !verdict.query.transcript.tentative &&
              !isConfirmationOfHeld(verdict.query.transcript)),
        ),
        map((verdict): Interruption => (verdict.type === 'stop' ? 'stop' : 'query')),
      );
      return merge(shutdown, stopped, retracted, options.interruptions.pipe(map((): Interruption => 'speech')), next);
    };
    return verdicts.pipe(
      ofType('query'),
      takeUntil(options.shutdown),
      filter(({ query: { transcript } }) => {
        if (transcript.tentative) return running === undefined;
        if (heardFromRecording.delete(transcript.utteranceId)) return false;
        return !isConfirmationOfHeld(transcript);
      }),
      concatMap(({ query }) =>
        defer(() => {
          const { utteranceId, tentative } = query.transcript;
          running = { utteranceId, follows: tentative || query.audio !== undefined };
          if (query.audio) heardFromRecording.add(utteranceId);
          let started = !tentative;
          // Each is listened for from the turn's start, and told to its stages when they subscribe
          // (a moment later, once the reply request is out): the confirmation, a cut, or the
          // transcript may come at any time.
          const start = remembered(
            tentative
              ? confirmations.pipe(
                  filter(({ query: confirmed }) => confirmed.transcript.utteranceId === utteranceId),
                  take(1),
                  map(({ query: confirmed }) => confirmed.transcript),
                  tap(() => (started = true)),
                )
              : of(query.transcript),
          );
          const cut = remembered(cutFor(query).pipe(take(1)));
          const text = remembered(
            query.audio
              ? options.texts.pipe(
                  filter((heard) => heard.utteranceId === utteranceId),
                  map((heard) => heard.text),
                  take(1),
                )
              : of(query.text),
          );
          const listening = new Subscription();
          for (const heard of [start, text]) listening.add(heard.connect());
          const control = { cut, start, text, droppedReplies: droppedReplies.get(utteranceId) ?? 0 };
          // Listened for once the reply is asked for (off the path to the request), and before
          // anything else can happen: nothing comes while this runs.
          const listenForCut = defer(() => {
            listening.add(cut.connect());
            return EMPTY;
          });
          return merge(answer(query, control), listenForCut).pipe(
            finalize(() => {
              listening.unsubscribe();
              running = undefined;
              if (started) droppedReplies.delete(utteranceId);
              else droppedReplies.set(utteranceId, control.droppedReplies + 1);
            }),
          );
        }),
      ),
    );
  });
}

/** Subscribed when connected; what it last said kept for whoever subscribes later. */
function remembered<T>(source: Observable<T>): Connectable<T> {
  return connectable(source, { connector: () => new ReplaySubject<T>(1), resetOnDisconnect: false });
}
