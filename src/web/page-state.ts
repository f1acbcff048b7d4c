import type {
  ConversationEntry,
  KnownPageEvent,
  PageEvent,
  PageSnapshot,
  TurnSummary,
  TurnsReport,
} from './page-json.js';

/** Turns kept for the latency chart and /api/turns. */
export const TURNS_KEPT = 50;
/** Entries kept in the conversation. */
export const CONVERSATION_KEPT = 100;

const SILENT_METER: PageSnapshot['meter'] = { type: 'meter', levelDbfs: -90, vad: 0 };
/**
 * Events that change only what is going on now; every other (a failed transcription, a wake
 * word, a stop, a tool call, an event this page does not know) is an entry of the conversation.
 */
const NOW_ONLY = new Set([
  'state',
  'muted',
  'meter',
  'speech',
  'transcript',
  'retracted',
  'empty',
  'query',
  'ignored',
  'saying',
  'interruption',
  'barge-in',
  'turn',
]);

/**
 * What the page shows, folded from its events as they come: what is going on now, the
 * conversation, and the last turns with their latencies. Bounded: old turns and entries drop off.
 */
export class PageState {
  private state = 'starting';
  private muted = false;
  private ringing = false;
  private hearing: PageSnapshot['hearing'] = null;
  private answering: PageSnapshot['answering'] = null;
  private meter = SILENT_METER;
  private behind: PageSnapshot['behind'] = null;
  private readonly conversation: ConversationEntry[] = [];
  private readonly turns: TurnSummary[] = [];

  constructor(
    private about: PageSnapshot['about'],
    private readonly clock: () => Date = () => new Date(),
  ) {}

  /** More facts about this run (once the voice loop has started). */
  describe(more: PageSnapshot['about']): void {
    this.about = { ...this.about, ...more };
  }

  apply(event: PageEvent): void {
    const known = event as KnownPageEvent;
    switch (known.type) {
      case 'state':
        this.state = known.state;
        if (known.state === 'listening') this.answering = null;
        return;
      case 'ring':
        this.ringing = known.phase === 'started';
        this.remember({ kind: 'event', at: this.clock().toISOString(), event });
        return;
      case 'muted':
        this.muted = known.muted;
        return;
      case 'about':
        this.describe(known.about);
        return;
      case 'meter':
        this.meter = known;
        return;
      case 'behind':
      case 'caught-up':
        this.behind = known.type === 'behind' ? { lagMs: known.lagMs, stage: known.stage } : null;
        this.remember({ kind: 'event', at: this.clock().toISOString(), event });
        return;
      case 'transcript':
        this.hearing = { utteranceId: known.utteranceId, text: known.text, tentative: known.tentative };
        return;
      case 'retracted':
      case 'empty':
        if (this.hearing?.utteranceId === known.utteranceId) this.hearing = null;
        return;
      case 'query':
        this.hearing = null;
        this.answering = { query: known.text, saying: [] };
        return;
      case 'saying':
        this.answering?.saying.push(known.text);
        return;
      case 'turn':
        this.answering = null;
        this.turns.push(known.turn);
        if (this.turns.length > TURNS_KEPT) this.turns.shift();
        this.remember({ kind: 'turn', turn: known.turn });
        return;
      default:
        if (NOW_ONLY.has(known.type)) return;
        if (known.type === 'transcription-failed') this.hearing = null;
        this.remember({ kind: 'event', at: this.clock().toISOString(), event });
    }
  }

  snapshot(): PageSnapshot {
    return {
      // A timer ringing while no turn is under way: hark is ringing.
      state: this.ringing && this.state === 'listening' ? 'ringing' : this.state,
      muted: this.muted,
      hearing: this.hearing,
      answering: this.answering,
      meter: this.meter,
      conversation: [...this.conversation],
      behind: this.behind,
      about: this.about,
    };
  }

  report(): TurnsReport {
    const steps = new Map<string, number[]>();
    for (const turn of this.turns) {
      for (const [step, ms] of Object.entries(turn.latencyMs)) steps.set(step, [...(steps.get(step) ?? []), ms]);
    }
    const stats: TurnsReport['stats'] = {};
    for (const [step, values] of steps) {
      const sorted = [...values].sort((a, b) => a - b);
      stats[step] = { median: quantile(sorted, 0.5), p90: quantile(sorted, 0.9), count: sorted.length };
    }
    return { turns: [...this.turns], stats };
  }

  private remember(entry: ConversationEntry): void {
    this.conversation.push(entry);
    if (this.conversation.length > CONVERSATION_KEPT) this.conversation.shift();
  }
}

/** The q-quantile of sorted values, interpolated between neighbours; 0 for none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const at = (sorted.length - 1) * q;
  const below = sorted[Math.floor(at)] as number;
  const above = sorted[Math.ceil(at)] as number;
  return Math.round(below + (above - below) * (at - Math.floor(at)));
}
