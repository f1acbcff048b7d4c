import type { Turn } from './reply-request.js';

export interface HistoryLimits {
  /** Exchanges (a user turn and its reply) kept. */
  maxTurns: number;
  maxChars: number;
}

/** What the user will hear marked in the history when hark was talked over. */
export const INTERRUPTED_MARK = ' [interrupted by the user]';

/**
 * The conversation as context for the next reply: bounded by exchanges and characters,
 * oldest dropped first, and only ever holding what the user actually heard.
 */
export class ConversationHistory {
  private turns: Turn[] = [];

  constructor(private readonly limits: HistoryLimits) {}

  /** The history plus the new user turn: the messages of the next request. */
  withUser(text: string): Turn[] {
    return [...this.turns, { role: 'user', text }];
  }

  /** Records a finished exchange; an interrupted reply keeps only what was heard, marked as such. */
  record(user: string, assistant: string, interrupted = false): void {
    this.turns.push({ role: 'user', text: user });
    const heard = interrupted ? `${assistant.trimEnd()}${INTERRUPTED_MARK}`.trimStart() : assistant;
    this.turns.push({ role: 'assistant', text: heard });
    this.trim();
  }

  get size(): number {
    return this.turns.length / 2;
  }

  snapshot(): readonly Turn[] {
    return this.turns;
  }

  clear(): void {
    this.turns = [];
  }

  private trim(): void {
    const chars = (): number => this.turns.reduce((sum, t) => sum + t.text.length, 0);
    while (this.turns.length > 0 && (this.turns.length / 2 > this.limits.maxTurns || chars() > this.limits.maxChars)) {
      this.turns.splice(0, 2);
    }
  }
}
