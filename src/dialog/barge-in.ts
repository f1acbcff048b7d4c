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
  /**
   * The stretch being judged: the segmenter's speech `id`, and the voiced time it had before
   * this judgement began (after a resume inside one stretch, only speech since counts).
   */
  private stretch: { id: number; sinceMs: number; lastMs: number; paused: boolean; confirmed: boolean } | undefined;

  constructor(private readonly policy: BargeInPolicy) {}

  push(event: SegmenterEvent, hark: AssistantState): BargeInPhase | undefined {
    switch (event.type) {
      case 'speech':
        return this.speech(event.id, event.durationMs, hark);
      case 'silence':
        return event.silentMs >= this.policy.resumeAfterMs ? this.resume(event.id) : undefined;
      case 'discarded':
        return this.end(event.id);
      case 'utterance':
        return event.utterance.final ? this.end(event.utterance.id) : undefined;
    }
  }

  private speech(id: number, durationMs: number, hark: AssistantState): BargeInPhase | undefined {
    if (this.stretch?.id !== id) this.stretch = { id, sinceMs: 0, lastMs: 0, paused: false, confirmed: false };
    const stretch = this.stretch;
    stretch.lastMs = durationMs;
    if (stretch.confirmed) return undefined;
    if (hark !== 'listening' && durationMs - stretch.sinceMs >= this.policy.minSpeechMs) {
      stretch.confirmed = true;
      return 'confirmed';
    }
    if (hark === 'speaking' && !stretch.paused) {
      stretch.paused = true;
      return 'paused';
    }
    return undefined;
  }

  /**
   * Silence long enough inside a stretch: a pause not confirmed is resumed, and what was heard
   * so far no longer counts (the segmenter may keep the stretch going; speech after this must
   * make the interruption on its own).
   */
  private resume(id: number): BargeInPhase | undefined {
    const stretch = this.stretch;
    if (stretch?.id !== id || !stretch.paused || stretch.confirmed) return undefined;
    this.stretch = { id, sinceMs: stretch.lastMs, lastMs: stretch.lastMs, paused: false, confirmed: false };
    return 'resumed';
  }

  private end(id: number): BargeInPhase | undefined {
    const stretch = this.stretch;
    if (stretch?.id !== id) return undefined;
    this.stretch = undefined;
    return stretch.paused && !stretch.confirmed ? 'resumed' : undefined;
  }
}
