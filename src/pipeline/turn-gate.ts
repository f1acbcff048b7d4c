import type { HarkConfig } from '../config/schema.js';
import { isStopPhrase, matchWakePhrase } from '../listen/wake-phrase.js';
import type { Logger } from '../system/logger.js';
import type { AssistantState } from './turn.js';
import type { UserTurn } from './user-turns.js';

export type GateVerdict =
  | { kind: 'turn'; turn: UserTurn }
  /** The wake phrase alone: hark acknowledges and listens for the question. */
  | { kind: 'wake' }
  /** "stop" while hark was speaking: nothing more to do. */
  | { kind: 'stop' }
  | { kind: 'ignore'; reason: string };

/** Decides which transcripts become turns. */
export interface TurnGate {
  admit(turn: UserTurn, state: AssistantState): GateVerdict;
  /** A reply was heard to the end: the follow-up window opens. */
  replied(): void;
  /** The user talked over a reply. */
  interrupted(): void;
}

/** How long after a barge-in a lone "stop" still counts as stopping that reply. */
const STOP_AFTER_INTERRUPTION_MS = 5000;

/**
 * Wake phrases (when configured): a turn starts only with one, which is taken off before the
 * chat request, except during the follow-up window after a reply. Stop phrases said while
 * hark speaks (or just after talking over it) stop it without a new turn.
 */
export class WakePhraseGate implements TurnGate {
  private followUpUntil = 0;
  private interruptedAt = -Infinity;

  constructor(
    private readonly listen: HarkConfig['listen'],
    private readonly logger: Logger,
    private readonly now: () => number = () => performance.now(),
  ) {}

  admit(turn: UserTurn, state: AssistantState): GateVerdict {
    const busy = state !== 'listening' || this.now() - this.interruptedAt < STOP_AFTER_INTERRUPTION_MS;
    if (busy && isStopPhrase(turn.text, this.listen.stopPhrases)) {
      this.interruptedAt = -Infinity;
      this.logger.info('turn.stopped', { transcript: turn.text });
      return { kind: 'stop' };
    }
    if (this.listen.wakePhrases.length === 0) return { kind: 'turn', turn };
    const match = matchWakePhrase(turn.text, this.listen.wakePhrases);
    if (match) {
      if (!/[\p{L}\p{N}]/u.test(match.rest)) {
        this.followUpUntil = this.now() + this.listen.followUpMs;
        this.logger.info('wake', { phrase: match.phrase });
        return { kind: 'wake' };
      }
      return { kind: 'turn', turn: { ...turn, text: match.rest } };
    }
    if (this.now() < this.followUpUntil) return { kind: 'turn', turn };
    this.logger.debug('turn.ignored', { reason: 'no wake phrase', transcript: turn.text });
    return { kind: 'ignore', reason: 'no wake phrase' };
  }

  replied(): void {
    this.followUpUntil = this.now() + this.listen.followUpMs;
  }

  interrupted(): void {
    this.interruptedAt = this.now();
  }
}
