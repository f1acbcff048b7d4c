/**
 * How much work the live wake-word detector does per step, by how far behind the microphone it
 * is. On a board too slow for everything (or slow while it starts), it gives up what costs most
 * and matters least first, and never stops hearing:
 *
 * 1. `full`: near a wake word, windows ending 20, 40 and 60 ms before each 80 ms step are scored
 *    too (where the steps fall matters: 10 ms moved a score from 0.99 to 0.26 in noise), and the
 *    noise of a noisy room is taken out first;
 * 2. `half`: near a wake word, only the windows halfway between steps;
 * 3. `steps`: the 80 ms steps alone, as openWakeWord itself;
 * 4. `noisy`: the steps alone, and the noise no longer taken out.
 *
 * It drops to the level its backlog calls for at once, and climbs back one level at a time once
 * it has kept up for a while. Pure: time is the stream time of the audio it has scored.
 */
export const WAKE_PACES = ['full', 'half', 'steps', 'noisy'] as const;
export type WakePace = (typeof WAKE_PACES)[number];

/** What each pace does near a wake word: which windows between steps it scores; and whether it denoises. */
export interface PaceWork {
  between: 'all' | 'halfway' | 'none';
  denoise: boolean;
}

export const PACE_WORK: Record<WakePace, PaceWork> = {
  full: { between: 'all', denoise: true },
  half: { between: 'halfway', denoise: true },
  steps: { between: 'none', denoise: true },
  noisy: { between: 'none', denoise: false },
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
