import { map, pipe, type OperatorFunction } from 'rxjs';
import { BEYOND_BANDS_DB, NO_ECHO_DBFS, type Frame } from '../audio/frames.js';
import { dbfs, rms } from '../audio/pcm.js';
import { EnergyVad } from '../listen/energy-vad.js';
import type { ScoredFrame } from '../listen/speech-events.js';
import type { Logger } from '../system/logger.js';
import { inOrder } from './in-order.js';
import type { Vad } from './ports.js';

export interface ScoreVoiceOptions {
  /** The energy VAD's gate, should the model fail. */
  fallbackGateDbfs: number;
  /**
   * A frame the echo canceller took hark's voice out of, left more than this many dB below the
   * echo it took out, is what remains of hark's own voice: it scores 0 whatever the VAD says.
   */
  ownVoiceBelowDb: number;
}

/**
 * Before the canceller has converged, what it took out of a frame says nothing: a frame that may
 * hold hark's echo is hark's own voice unless it is this much louder than the loudest the echo
 * may be (or always, while that is not known yet), less what the canceller is known to take out
 * of hark's words lately (Frame.echoTakenDb). A frame over that mark but not this much over the
 * loudest echo is faint (see ScoredFrame.faint): the user, or what the canceller left of hark's
 * voice on a frame it took less out of than usual.
 */
const ABOVE_PREDICTED_ECHO_DB = 6;
/**
 * Once the canceller has converged, what it leaves of hark's voice lies its measured loss below
 * the echo it took out. A frame within this much of that residual is still hark's, however
 * little the canceller takes out (through a real sound server it took 9 dB, and a fixed mark of
 * 12 dB let its residual through as speech); the loss counts up to LOSS_CAP_DB. Before the loss
 * is measured, `ownVoiceBelowDb` is the mark.
 */
const ABOVE_RESIDUAL_DB = 6;
const LOSS_CAP_DB = 30;

/**
 * Frames → frames with their speech probability, in order. If the model fails mid-run, the
 * energy VAD takes over and the log says so; listening never stops over it.
 */
export function scoreVoice(vad: Vad, logger: Logger, options: ScoreVoiceOptions): OperatorFunction<Frame, ScoredFrame> {
  let active: Vad = vad;
  const fallback = (frame: Frame, error: unknown): ScoredFrame => {
    if (active === vad) {
      logger.error('vad.failed', { vad: vad.name, error: (error as Error).message, using: 'energy VAD' });
      active = new EnergyVad(options.fallbackGateDbfs);
    }
    return { ...frame, probability: active.probability(frame.samples) as number };
  };
  const ownVoice = (frame: Frame, level: number): boolean => {
    if (frame.echoDbfs === undefined) return false;
    if (frame.echoTrusted === false) {
      if (heardBeyondBands(frame)) return false;
      const mark = (frame.echoPredictedDbfs ?? NO_ECHO_DBFS) + ABOVE_PREDICTED_ECHO_DB - (frame.echoTakenDb ?? 0);
      return frame.echoPredictedDbfs === null || level < mark;
    }
    const belowDb =
      frame.echoLossDb === null || frame.echoLossDb === undefined
        ? options.ownVoiceBelowDb
        : Math.min(frame.echoLossDb, LOSS_CAP_DB) - ABOVE_RESIDUAL_DB;
    return level < frame.echoDbfs - belowDb;
  };
  const score = (frame: Frame): ScoredFrame | Promise<ScoredFrame> => {
    try {
      // What is hark's own voice is silence to the model too: its state never learns hark's
      // voice, so the frames after an echo are not scored as the speech going on.
      const level = dbfs(rms(frame.samples));
      const own = ownVoice(frame, level);
      const result = active.probability(own ? new Int16Array(frame.samples.length) : frame.samples);
      const echo = own ? undefined : echoDoubt(frame, level);
      const scored = (probability: number): ScoredFrame => ({
        ...frame,
        probability: own ? 0 : probability,
        ...(echo ? { [echo]: true } : {}),
      });
      if (typeof result === 'number') return scored(result);
      return result.then(scored, (error: unknown) => fallback(frame, error));
    } catch (error) {
      return fallback(frame, error);
    }
  };
  // Each frame is asked for as it arrives (Silero in the listening thread works through what
  // waits without a round trip per frame: a slow board catches up faster) and comes out in order.
  return pipe(map(score), inOrder());
}

/**
 * A frame not hark's own voice, while the canceller cannot vouch for it and hark's voice is still
 * reaching it. Well over the echo predicted (doubtful): the user talking over hark, or an echo
 * path grown louder than measured (a speaker turned up); only when hark's voice has stopped
 * reaching the microphone (the reply paused) can the two be told apart. Not well over it, but
 * over what the canceller is known to leave (faint): see ABOVE_PREDICTED_ECHO_DB.
 */
function echoDoubt(frame: Frame, level: number): 'doubtful' | 'faint' | undefined {
  const predicted = frame.echoPredictedDbfs ?? NO_ECHO_DBFS;
  if (frame.echoTrusted !== false || predicted <= NO_ECHO_DBFS) return undefined;
  return level < predicted + ABOVE_PREDICTED_ECHO_DB ? 'faint' : 'doubtful';
}

/**
 * Band by band, the frame holds sound hark's echo cannot explain (see BandPath): not hark's own
 * voice, though not louder than its echo may be. Such a frame is faint: it may pause a reply,
 * and the user's words go on to confirm the interruption once hark's voice has stopped; on its
 * own it never counts. (Counted as doubtful, and before BandPath asked for hark's voice to be
 * heard at the delay in use, the simulated room's sound server running dry had hark confirm its
 * own voice as an interruption 3 times in 60 replies.)
 */
function heardBeyondBands(frame: Frame): boolean {
  return frame.echoBeyondDb !== null && frame.echoBeyondDb !== undefined && frame.echoBeyondDb >= BEYOND_BANDS_DB;
}
