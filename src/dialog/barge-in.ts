import type { SegmenterEvent } from '../listen/speech-events.js';
import type { AssistantState } from './turn.js';

/** What the judge decides about speech heard while hark is busy. */
export type BargeInPhase = 'paused' | 'resumed' | 'confirmed';

export interface BargeInPolicy {
  /** Speech (voiced frames the VAD scored as the user's) that makes an interruption. */
  minSpeechMs: number;
  /** Silence after which a paused reply plays on, the interruption not confirmed. */
  resumeAfterMs: number;
}

/**
 * Turn-taking while hark talks, pause then confirm: speech that starts while hark speaks
 * pauses the reply at once; it becomes an interruption only once it has lasted
 * `minSpeechMs`. A cough, a knock or a word of hark's own voice left over by the echo
 * canceller falls silent first, and the reply plays on from where it paused. Speech while hark
 * is thinking interrupts once it is long enough. Pure: fed the segmenter's events in order.
 */
export class BargeInJudge {
  private stretch: { id: number; paused: boolean; confirmed: boolean } | undefined;

  constructor(private readonly policy: BargeInPolicy) {}

  push(event: SegmenterEvent, hark: AssistantState): BargeInPhase | undefined {
    switch (event.type) {
      case 'speech':
        return this.speech(event.id, event.durationMs, hark);
      case 'silence':
        return event.silentMs >= this.policy.resumeAfterMs ? this.end(event.id) : undefined;
      case 'discarded':
        return this.end(event.id);
      case 'utterance':
        return event.utterance.final ? this.end(event.utterance.id) : undefined;
    }
  }

  private speech(id: number, durationMs: number, hark: AssistantState): BargeInPhase | undefined {
    if (this.stretch?.id !== id) this.stretch = { id, paused: false, confirmed: false };
    const stretch = this.stretch;
    if (stretch.confirmed) return undefined;
    if (hark !== 'listening' && durationMs >= this.policy.minSpeechMs) {
      stretch.confirmed = true;
      return 'confirmed';
    }
    if (hark === 'speaking' && !stretch.paused) {
      stretch.paused = true;
      return 'paused';
    }
    return undefined;
  }

  private end(id: number): BargeInPhase | undefined {
    const stretch = this.stretch;
    if (stretch?.id !== id) return undefined;
    this.stretch = undefined;
    return stretch.paused && !stretch.confirmed ? 'resumed' : undefined;
  }
}
