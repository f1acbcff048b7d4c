import { OUTLASTS_ECHO_MS, type SegmenterEvent } from '../listen/speech-events.js';
import type { AssistantState } from './turn.js';

/**
 * What the judge decides about speech heard while hark is busy: the reply paused for it, resumed
 * (not an interruption, so far), the interruption confirmed; or, when speech the reply paused
 * for is over without interrupting, dismissed: the reply plays on, and its words are no query.
 */
export type BargeInPhase = 'paused' | 'resumed' | 'confirmed' | 'dismissed';

export interface BargeInPolicy {
  /** Speech (voiced frames the VAD scored as the user's) that makes an interruption. */
  minSpeechMs: number;
  /** Silence after which a paused reply plays on, the interruption not confirmed. */
  resumeAfterMs: number;
  /**
   * An interruption is confirmed no sooner than this after the reply paused for it, however long
   * the speech before the pause (0 when absent): hark's own voice let through by the canceller,
   * scored as a soft first syllable would be, under the raised threshold, for as long as an
   * interruption takes, stops reaching the microphone about the echo delay after the pause,
   * while the user goes on. Through a real sound server such echo was confirmed 20 and 64 ms
   * after the pause; in the room bench no interruption came sooner than 250 ms after it anyway.
   */
  confirmAfterPauseMs?: number;
}

/**
 * Turn-taking while hark talks, pause then confirm: speech that starts while hark speaks
 * pauses the reply at once; it becomes an interruption only once it has lasted
 * `minSpeechMs`. A cough, a knock or a word of hark's own voice left over by the echo
 * canceller falls silent first, and the reply plays on from where it paused. Speech while hark
 * is thinking interrupts once it is long enough. Pure: fed the segmenter's events in order.
 *
 * How long speech has lasted: its voiced frames, and the short gaps between them (a stop
 * consonant, a breath between words) up to half as long as the voiced part. Counting no gap
 * made a talker whose first words were clipped wait for 300 ms of pure voicing; counting every
 * gap would make two clicks half a second apart an interruption. Speech heard where hark's echo
 * may be and the canceller cannot vouch for it (doubtful) counts too, but only once the speech
 * has outlasted the echo: OUTLASTS_ECHO_MS of speech no longer doubtful, scored as speech starts
 * (`clearMs`), heard since the reply paused. With hark's voice not heard at all (headphones, a
 * speaker across the room: the canceller has nothing to converge on, so every frame its voice
 * could reach is doubtful), the room bench's interruptions were confirmed 854 ms after their
 * onsets (median) without this, 726 ms with it.
 */
export class BargeInJudge {
  /**
   * The stretch being judged: the segmenter's speech `id`, the voiced time (and doubtful voiced
   * time) it had before this judgement began (after a resume inside one stretch, only speech
   * since counts), and the stream time its first voiced frame since began at; whether the reply
   * is paused for it, and its clear time (`clearMs`) at the latest pause; its voiced time at its
   * last frame heard while hark was busy.
   */
  private stretch:
    | {
        id: number;
        sinceMs: number;
        lastMs: number;
        doubtfulSinceMs: number;
        doubtfulLastMs: number;
        fromMs?: number;
        paused: boolean;
        pausedAtMs: number;
        pausedClearMs: number;
        confirmed: boolean;
        judged: boolean;
        busyMs: number;
      }
    | undefined;

  constructor(private readonly policy: BargeInPolicy) {}

  push(event: SegmenterEvent, hark: AssistantState): BargeInPhase | undefined {
    switch (event.type) {
      case 'speech':
        return this.speech(event, hark);
      case 'silence':
        return event.silentMs >= this.policy.resumeAfterMs ? this.resume(event.id) : undefined;
      case 'discarded':
        return this.end(event.id, false);
      case 'utterance':
        return event.utterance.final ? this.end(event.utterance.id, true) : undefined;
    }
  }

  private speech(
    { id, durationMs, doubtfulMs, clearMs, atMs }: Extract<SegmenterEvent, { type: 'speech' }>,
    hark: AssistantState,
  ): BargeInPhase | undefined {
    if (this.stretch?.id !== id) {
      this.stretch = {
        id,
        sinceMs: 0,
        lastMs: 0,
        doubtfulSinceMs: 0,
        doubtfulLastMs: 0,
        paused: false,
        pausedAtMs: 0,
        pausedClearMs: 0,
        confirmed: false,
        judged: false,
        busyMs: 0,
      };
    }
    const stretch = this.stretch;
    const outlastedEcho = stretch.paused && clearMs - stretch.pausedClearMs >= OUTLASTS_ECHO_MS;
    const voicedMs = durationMs - stretch.sinceMs + (outlastedEcho ? doubtfulMs - stretch.doubtfulSinceMs : 0);
    stretch.fromMs ??= atMs - (durationMs - stretch.lastMs);
    stretch.lastMs = durationMs;
    stretch.doubtfulLastMs = doubtfulMs;
    if (hark !== 'listening') stretch.busyMs = durationMs;
    if (stretch.confirmed) return undefined;
    if (hark === 'speaking' && !stretch.paused) {
      stretch.paused = true;
      stretch.pausedAtMs = atMs;
      stretch.pausedClearMs = clearMs;
      stretch.judged = true;
      return 'paused';
    }
    const gapsMs = Math.max(0, atMs - stretch.fromMs - voicedMs);
    const heardOnMs = stretch.paused ? atMs - stretch.pausedAtMs : Infinity;
    if (
      hark !== 'listening' &&
      heardOnMs >= (this.policy.confirmAfterPauseMs ?? 0) &&
      voicedMs + Math.min(gapsMs, voicedMs / 2) >= this.policy.minSpeechMs
    ) {
      stretch.confirmed = true;
      return 'confirmed';
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
    this.stretch = {
      ...stretch,
      sinceMs: stretch.lastMs,
      doubtfulSinceMs: stretch.doubtfulLastMs,
      fromMs: undefined,
      paused: false,
    };
    return 'resumed';
  }

  /**
   * The stretch is over. An utterance paused for and never confirmed is dismissed, unless the
   * user went on for `minSpeechMs` after hark fell silent: speech hark played on over (a word too
   * short to interrupt, its own voice let through by the canceller) never becomes a query.
   */
  private end(id: number, utterance: boolean): BargeInPhase | undefined {
    const stretch = this.stretch;
    if (stretch?.id !== id) return undefined;
    this.stretch = undefined;
    if (stretch.confirmed) return undefined;
    if (utterance && stretch.judged && stretch.lastMs - stretch.busyMs < this.policy.minSpeechMs) return 'dismissed';
    return stretch.paused ? 'resumed' : undefined;
  }
}
