/**
 * How much work the live wake-word detector does per step, by how far behind the microphone it
 * is. On a board too slow for everything (or slow while it starts), it gives up what costs most
 * and matters least first, and never stops hearing:
 *
 * 1. `full`: 40 ms steps, the windows halfway between steps scored near a wake word, denoised;
 * 2. `no-halfway`: no halfway windows;
 * 3. `coarse`: 80 ms steps, as openWakeWord itself (half the embeddings);
 * 4. `coarse-noisy`: 80 ms steps, and the noise no longer taken out first.
 *
 * It drops to the level its backlog calls for at once, and climbs back one level at a time once
 * it has kept up for a while. Pure: time is the stream time of the audio it has scored.
 */
export const WAKE_PACES = ['full', 'no-halfway', 'coarse', 'coarse-noisy'] as const;
export type WakePace = (typeof WAKE_PACES)[number];

/** What each pace does. */
export interface PaceWork {
  stepMs: 40 | 80;
  halfway: boolean;
  denoise: boolean;
}

export const PACE_WORK: Record<WakePace, PaceWork> = {
  full: { stepMs: 40, halfway: true, denoise: true },
  'no-halfway': { stepMs: 40, halfway: false, denoise: true },
  coarse: { stepMs: 80, halfway: false, denoise: true },
  'coarse-noisy': { stepMs: 80, halfway: false, denoise: false },
};

/** How far the detector is behind what it has been given, said when its pace changes or audio is dropped. */
export interface WakeBacklog {
  pace: WakePace;
  /** Audio waiting to be scored. */
  backlogMs: number;
  /** Audio dropped unscored since the start (the backlog went beyond the most it keeps). */
  droppedMs: number;
  /** Stream time scored so far. */
  atMs: number;
}

/** The backlog (ms of audio waiting) beyond which each pace after the first is taken. */
const BEHIND_MS = [400, 1000, 2500] as const;
/** Kept up: a backlog under this, */
const KEPT_UP_MS = 100;
/** for this much scored audio, before climbing a level. */
const CLIMB_AFTER_MS = 5000;

export class WakePacer {
  private level = 0;
  private keptUpSinceMs: number | undefined;

  /** The pace for the next batch, given the backlog and the stream time scored so far. */
  next(backlogMs: number, scoredMs: number): WakePace {
    const needed = BEHIND_MS.filter((ms) => backlogMs > ms).length;
    if (needed > this.level) {
      this.level = needed;
      this.keptUpSinceMs = undefined;
    } else if (this.level > 0 && backlogMs < KEPT_UP_MS) {
      this.keptUpSinceMs ??= scoredMs;
      if (scoredMs - this.keptUpSinceMs >= CLIMB_AFTER_MS) {
        this.level--;
        this.keptUpSinceMs = scoredMs;
      }
    } else if (backlogMs >= KEPT_UP_MS) {
      this.keptUpSinceMs = undefined;
    }
    return WAKE_PACES[this.level] as WakePace;
  }

  get pace(): WakePace {
    return WAKE_PACES[this.level] as WakePace;
  }
}
