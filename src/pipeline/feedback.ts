import {
  BehaviorSubject,
  Subject,
  combineLatest,
  distinctUntilChanged,
  map,
  scan,
  shareReplay,
  type Observable,
} from 'rxjs';
import type { Conversation, ConversationPolicy } from '../dialog/conversation.js';
import type { AssistantState } from '../dialog/turn.js';
import type { FrameContext } from '../listen/speech-events.js';
import {
  heardState,
  isIdle,
  newLoopState,
  reduceLoop,
  type LoopEvent,
  type LoopState,
  type TimedLoopEvent,
} from './loop-state.js';
import type { WakeGateContext } from './wake-gate.js';

/**
 * Where the loop's state flows back up: one `state$`, folded by reduceLoop from the events
 * dispatched to it, and each edge from it to a stage that reads it, named once below.
 */
export interface LoopStore {
  /** The loop's state, as it is when each reader is told of a change. */
  state$: Observable<LoopState>;
  /** Folds an event in at once, before whatever comes after it on its way out sees it. */
  dispatch: (event: LoopEvent) => void;
}

export function loopStore(policy: ConversationPolicy, now: () => number): LoopStore {
  const events = new Subject<TimedLoopEvent>();
  const latest = new BehaviorSubject(newLoopState());
  events.pipe(scan(reduceLoop(policy), latest.value)).subscribe(latest);
  return {
    // A reader that changes the state as it is told (a ring starting as hark goes idle) would
    // otherwise leave the readers after it told the state before that change, last.
    state$: latest.pipe(map(() => latest.value)),
    dispatch: (event) => events.next({ event, at: now() }),
  };
}

/**
 * What hark is doing → what hears the room (the barge-in judge, transcription, the gate): a
 * ring or a notice sounding while no turn is under way counts as hark speaking.
 */
export function heardStateFeedback(state$: Observable<LoopState>): Observable<AssistantState> {
  return state$.pipe(map(heardState), distinctUntilChanged(), shareReplay({ bufferSize: 1, refCount: false }));
}

/**
 * What hark is doing → the segmenter: over hark's own voice the VAD's start threshold is
 * raised, and half-duplex (barge-in off in a live room) nothing is heard at all. The endpoint
 * decided from the words so far → how long a pause ends the utterance.
 */
export function segmenterFeedback(state$: Observable<LoopState>, fullDuplex: boolean): Observable<FrameContext> {
  return state$.pipe(
    map((state) => {
      const doing = heardState(state);
      return {
        speaking: doing === 'speaking',
        listening: fullDuplex || doing !== 'speaking',
        endpoint: state.endpoint,
      };
    }),
  );
}

/** The conversation → the gate (the follow-up window, hark's own words heard back) and each turn's request (the history). */
export function conversationFeedback(state$: Observable<LoopState>): Observable<Conversation> {
  return state$.pipe(
    map((state) => state.conversation),
    distinctUntilChanged(),
  );
}

/** What hark is doing and the follow-up window → the wake gate, which opens for either. */
export function wakeGateFeedback(
  state: Observable<AssistantState>,
  conversation: Observable<Conversation>,
  now: () => number,
): Observable<WakeGateContext> {
  return combineLatest([state, conversation]).pipe(
    map(([doing, remembered]) => ({ state: doing, followUp: now() < remembered.followUpUntil })),
  );
}

/** Idle → rings and notices: nothing is said unprompted over a turn, or over each other. */
export function idleFeedback(state$: Observable<LoopState>): Observable<boolean> {
  return state$.pipe(map(isIdle));
}
