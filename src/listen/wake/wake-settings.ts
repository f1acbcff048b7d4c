import type { HarkConfig } from '../../config/schema.js';
import { phraseOf } from './wake-models.js';

/**
 * Live listening: one step at a time, a sound's look-back too, giving the thread Silero shares
 * back between steps (a step is about 1 ms on a desktop core, 15 at 7 % of it; Silero's frames
 * waited for batches of four). Behind the microphone (a slow board, or any board while it
 * starts), the detector does less per step until it has caught up (WakePace); only beyond 30 s
 * of audio waiting is the oldest dropped, and said.
 */
export const LIVE_DETECTOR = { maxBatchSteps: 1, maxBacklogMs: 30_000 } as const;

/** The transcript phrases: `listen.wakePhrases`, else what the wake-word models are called ("hey jarvis"). */
export function wakePhrases(config: Pick<HarkConfig, 'wake' | 'listen'>): string[] {
  return config.listen.wakePhrases.length > 0 ? [...config.listen.wakePhrases] : config.wake.models.map(phraseOf);
}
