import {
  afterNotice,
  afterSaying,
  afterTurn,
  afterVerdict,
  newConversation,
  type Conversation,
  type ConversationPolicy,
} from '../dialog/conversation.js';
import type { AssistantState } from '../dialog/turn.js';
import type { Endpoint } from '../listen/speech-events.js';
import type { GateEvent, NoticeEvent, TurnEvent } from './events.js';

/**
 * What the voice loop knows of itself, read by the stages that feed back (see feedback.ts).
 * Pure data, changed only by reduceLoop.
 */
export interface LoopState {
  /** What the turns say hark is doing. */
  doing: AssistantState;
  /** A ring or a notice sounds (hark's voice reaches the microphone, though no turn is under way). */
  sounding: boolean;
  /** How long a pause ends the utterance under way, as decided from its words (see decideEndpoints). */
  endpoint: Endpoint | undefined;
  /** History, carried words, the follow-up window, what hark last said. */
  conversation: Conversation;
}

/**
 * The loop's events that change its state: what a turn says hark is doing, a turn over, a
 * sentence begun, a wake word or stop phrase, a notice said; and two the loop tells itself: a
 * ring or notice starting or stopping to sound, and the endpoint decided for an utterance.
 */
export type LoopEvent =
  | Extract<TurnEvent, { type: 'state' | 'turn' | 'saying' }>
  | Extract<GateEvent, { type: 'wake' | 'stop' }>
  | NoticeEvent
  | { type: 'sounding'; on: boolean }
  | { type: 'endpoint'; endpoint: Endpoint | undefined };

/** An event as it is folded in, with when it came (monotonic ms): the follow-up window counts from it. */
export interface TimedLoopEvent {
  event: LoopEvent;
  at: number;
}

export function newLoopState(): LoopState {
  return { doing: 'listening', sounding: false, endpoint: undefined, conversation: newConversation() };
}

/** The loop's reducer: (state, event) → state, for `scan`. Pure: no I/O, no clock (the time comes with the event). */
export function reduceLoop(policy: ConversationPolicy): (state: LoopState, timed: TimedLoopEvent) => LoopState {
  return (state, { event, at }) => {
    switch (event.type) {
      case 'state':
        return { ...state, doing: event.state };
      case 'sounding':
        return { ...state, sounding: event.on };
      case 'endpoint':
        return { ...state, endpoint: event.endpoint };
      case 'turn':
        return { ...state, conversation: afterTurn(state.conversation, event.turn, policy) };
      case 'saying':
        return { ...state, conversation: afterSaying(state.conversation, event.sentence) };
      case 'notice': {
        const { kind, text } = event.notice;
        const notice = { kind, text, phase: noticePhase(event) };
        return { ...state, conversation: afterNotice(state.conversation, notice, at, policy) };
      }
      case 'wake':
      case 'stop':
        return { ...state, conversation: afterVerdict(state.conversation, event, at, policy) };
    }
  };
}

/** A notice is said once it was spoken to the end, or cut by the user; hark stopping or a failure leaves it unsaid. */
function noticePhase(event: NoticeEvent): 'started' | 'said' | 'unsaid' {
  if (event.phase === 'started') return 'started';
  const said = event.phase === 'spoken' || (event.phase === 'stopped' && event.by !== 'shutdown');
  return said ? 'said' : 'unsaid';
}

/** What hark is doing as what hears the room takes it: a ring or a notice sounding while no turn is under way is hark speaking. */
export function heardState(state: LoopState): AssistantState {
  return state.sounding && state.doing === 'listening' ? 'speaking' : state.doing;
}

/** No turn under way and nothing sounding: a ring or a notice may start. */
export function isIdle(state: LoopState): boolean {
  return state.doing === 'listening' && !state.sounding;
}
