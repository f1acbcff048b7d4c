import type { HarkConfig } from '../config/schema.js';
import type { Logger } from '../system/logger.js';
import { OpenWakeWord } from './openwakeword.js';
import { PRETRAINED_LICENCE, phraseOf } from './wake-models.js';

/**
 * Live listening: at most 4 steps (160 ms) per batch (each batched run holds the event loop, about 1 ms a
 * step on a desktop core), and at most 2 s of audio waiting to be scored.
 */
export const LIVE_DETECTOR = { maxBatchSteps: 4, maxBacklogMs: 2000 } as const;

/** What stands between speech and the service: a wake word heard on the device, a phrase in the transcript, or nothing. */
export type WakeGate =
  { engine: 'openwakeword'; detector: OpenWakeWord } | { engine: 'phrase'; phrases: string[] } | { engine: 'none' };

/** The transcript phrases: `listen.wakePhrases`, else what the wake-word models are called ("hey jarvis"). */
export function wakePhrases(config: Pick<HarkConfig, 'wake' | 'listen'>): string[] {
  return config.listen.wakePhrases.length > 0 ? [...config.listen.wakePhrases] : config.wake.models.map(phraseOf);
}

/**
 * The configured wake gate. When the openWakeWord models cannot load, hark still starts, with
 * the transcript's wake phrases instead (never listening to everything), and the log says why.
 */
export async function loadWakeGate(
  config: Pick<HarkConfig, 'wake' | 'listen'>,
  logger: Logger,
  options: { modelsDir?: string; live?: boolean } = {},
): Promise<WakeGate> {
  const { modelsDir, live = true } = options;
  const { wake } = config;
  if (wake.engine === 'none') return { engine: 'none' };
  if (wake.engine === 'phrase') return { engine: 'phrase', phrases: wakePhrases(config) };
  try {
    // A file read faster than real time is scored whole; a live microphone never falls far behind.
    const detector = await OpenWakeWord.load({
      ...wake,
      ...(live ? LIVE_DETECTOR : {}),
      ...(modelsDir ? { modelsDir } : {}),
    });
    const pretrained = detector.files.filter((f) => f.source === 'package').map((f) => f.name);
    logger.info('wake.ready', {
      engine: 'openwakeword',
      models: detector.models,
      threshold: wake.threshold,
      denoise: detector.denoising,
      ...(pretrained.length ? { licence: `${pretrained.join(', ')}: ${PRETRAINED_LICENCE}` } : {}),
    });
    if (detector.denoiseError !== undefined) {
      logger.warn('wake.denoise-unavailable', { reason: detector.denoiseError, using: 'the audio as it is' });
    }
    return { engine: 'openwakeword', detector };
  } catch (error) {
    const phrases = wakePhrases(config);
    logger.warn('wake.fallback', {
      reason: `the wake-word models could not load: ${(error as Error).message}`,
      using: `the transcript instead: every utterance is sent to the service, and a turn starts only when it begins with ${phrases.map((p) => `"${p}"`).join(' or ')}`,
    });
    return { engine: 'phrase', phrases };
  }
}
