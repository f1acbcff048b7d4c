/** What the segmenter takes and gives: scored frames in; speech, silence, utterances and blips out. */
import type { Frame } from '../audio/frames.js';

export interface SegmenterConfig {
  sampleRateHz: number;
  startThreshold: number;
  stopThreshold: number;
  /** Start threshold while hark itself is speaking (its own voice reaches the microphone). */
  speakingStartThreshold: number;
  minSpeechMs: number;
  endSilenceMs: number;
  preRollMs: number;
  /** No utterance is longer: a monologue is cut at its quietest point before this. */
  maxUtteranceMs?: number;
  /** Silence kept after the last voiced frame. */
  trailingSilenceMs?: number;
  /** A monologue is cut in a pause at least this long (else at its quietest point). */
  minCutPauseMs?: number;
  /** Speech a part of a monologue must leave for the next part, so no part is a near-empty request. */
  minPartSpeechMs?: number;
  /** While hark is silent, for a talker well over the room, a frame within this many dB of its noise floor is a pause whatever the VAD says (default 6). */
  quietMarginDb?: number;
  /** Inside a pause that reached the room's floor, voiced frames must last this long to be speech again, not a click (default 90). */
  minResumeMs?: number;
  /** This far into a pause, the speech so far is offered as a tentative utterance (none when absent). */
  speculateAfterMs?: number;
}

/**
 * Speech clear of hark's echo that shows someone is talking, after speech that was doubtful:
 * an echo path grown louder than measured falls silent when the reply pauses (a frame of its
 * reverberation may follow), a talker goes on. Then the doubtful speech counts as theirs too.
 * Only frames that would start speech count (see ScoredFrame and `clearMs`): the reverberation
 * of an echo turned up by 60 dB, fading under the stop threshold, once made it.
 */
export const OUTLASTS_ECHO_MS = 64;

/** One VAD-scored frame of 16-bit mono audio, with when its last sample was captured (monotonic ms). */
export interface ScoredFrame extends Frame {
  probability: number;
  /**
   * The frame may hold hark's own echo that the canceller has not vouched for (it has not
   * converged, and hark's voice was playing into this frame): speech heard in it may carry a
   * stretch on, but it counts as the user's speech only once OUTLASTS_ECHO_MS of speech clear
   * of it follow (an echo path grown louder than measured would otherwise become a turn).
   */
  doubtful?: boolean;
  /**
   * Louder than what the canceller, not yet converged, is known to leave of hark's voice, but not
   * well over the loudest its echo may be: the user, or hark's voice on a frame the canceller
   * took less out of than usual. Speech heard in it may start or carry a stretch on (and pause a
   * reply), but never counts as the user's speech.
   */
  faint?: boolean;
}

export interface Utterance {
  /** Which stretch of speech; the parts of one long monologue share it. */
  id: number;
  part: number;
  /** The last part of its speech: the user has stopped talking. */
  final: boolean;
  /** Pre-roll, speech, and a little trailing silence. */
  samples: Int16Array;
  sampleRateHz: number;
  /** Stream time of the speech onset (first voiced frame), in ms from the start of input. */
  onsetMs: number;
  /** Stream time where this part ends. */
  endMs: number;
  /** When the first sample of the onset frame was captured (monotonic ms). */
  onsetAt: number;
  /** When the last voiced frame so far was captured: the listener's best guess at the end of speech. */
  speechEndedAt: number;
  /** hark was speaking during some of it: it may be hark's own voice. */
  overlapped: boolean;
}

export type SegmenterEvent =
  /**
   * Every voiced frame of a stretch of speech, so listeners can act on its duration: the speech
   * so far (voiced frames only), the voiced frames that were doubtful (hark's echo may be in them:
   * not in `durationMs`), the voiced frames clear of the echo that scored as speech starts
   * (`startThreshold`; part of `durationMs`), and the stream time at the end of this frame.
   */
  | {
      type: 'speech';
      id: number;
      onsetMs: number;
      onsetAt: number;
      durationMs: number;
      doubtfulMs: number;
      clearMs: number;
      atMs: number;
    }
  /** Every unvoiced frame inside a stretch of speech: how long the silence has lasted so far. */
  | { type: 'silence'; id: number; silentMs: number; atMs: number }
  /** A pause has begun: the speech so far, as the utterance it would be if the user stopped here. */
  | { type: 'tentative'; utterance: Utterance }
  | { type: 'utterance'; utterance: Utterance }
  /** Speech too short to be an utterance (a cough, a click): never sent anywhere. */
  | { type: 'discarded'; id: number; onsetMs: number; voicedMs: number };

export interface FrameContext {
  /** hark is speaking: use the raised start threshold. */
  speaking: boolean;
  /** false while half-duplex playback runs: frames are ignored. */
  listening: boolean;
  /** How long a pause ends this utterance, when something decided it (from what the user said so far). */
  endpoint?: Endpoint | undefined;
}

/** The silence that ends one utterance, decided while it was being spoken. */
export interface Endpoint {
  utteranceId: number;
  silenceMs: number;
}
