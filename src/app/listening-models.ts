import type { HarkConfig } from '../config/schema.js';
import { loadVad, type LoadVadOptions } from '../listen/load-vad.js';
import { LIVE_DETECTOR, wakePhrases } from '../listen/wake-settings.js';
import { EnergyVad } from '../listen/energy-vad.js';
import { OpenWakeWord } from '../listen/openwakeword.js';
import { PRETRAINED_LICENCE, resolveWakeModels, type WakeModelFiles } from '../listen/wake-models.js';
import type { Vad } from '../pipeline/ports.js';
import { withinDeadline } from '../system/deadline.js';
import type { Logger } from '../system/logger.js';
import { LateVad } from './late-vad.js';
import { LateWakeWord } from './late-wake-word.js';

// The models hark listens with, started at once: they load (onnxruntime, ~0.25 s here) while
// hark already listens, and what it hears meanwhile waits for them.

/**
 * How long hark waits for its models while it listens: on a slow board they take seconds, but a
 * load that never ends would leave it listening to nothing (and holding all it heard).
 */
export const MODELS_LOAD_LIMIT_MS = 60_000;

/** The configured VAD at once: Silero's model loads while hark already listens (see LateVad). */
export function startVad(config: HarkConfig['vad'], logger: Logger, options: LoadVadOptions = {}): Vad {
  if (config.engine === 'energy') return new EnergyVad(config.energyGateDbfs);
  return new LateVad(loadVad(config, logger, options), 'silero');
}

/**
 * What stands between speech and the service: a wake word heard on the device (or, should its
 * models fail to load, the transcript's `phrases`), a phrase in the transcript, or nothing.
 */
export type WakeGate =
  | { engine: 'openwakeword'; detector: LateWakeWord; phrases: string[] }
  | { engine: 'phrase'; phrases: string[] }
  | { engine: 'none' };

/**
 * The configured wake gate, at once: openWakeWord's models load while hark already listens (see
 * LateWakeWord). When they are not there, or cannot load, hark listens for the transcript's wake
 * phrases instead (never to everything), and the log says why.
 */
export function startWakeGate(
  config: Pick<HarkConfig, 'wake' | 'listen'>,
  logger: Logger,
  options: { modelsDir?: string; live?: boolean; deadline?: AbortSignal } = {},
): WakeGate {
  const { modelsDir, live = true, deadline = new AbortController().signal } = options;
  const { wake } = config;
  if (wake.engine === 'none') return { engine: 'none' };
  const phrases = wakePhrases(config);
  if (wake.engine === 'phrase') return { engine: 'phrase', phrases };
  let files: WakeModelFiles;
  try {
    files = resolveWakeModels(wake.models, modelsDir);
  } catch (error) {
    fallBack(logger, error, phrases);
    return { engine: 'phrase', phrases };
  }
  // A file read faster than real time is scored whole; a live microphone never falls far behind.
  const loading = withinDeadline(
    OpenWakeWord.load({ ...wake, ...(live ? LIVE_DETECTOR : {}) }, files),
    deadline,
    (late) => late.close(),
  );
  const detector = new LateWakeWord(
    loading.then((loaded) => {
      logReady(logger, loaded, wake.threshold);
      return loaded;
    }),
  );
  void detector.loaded.then(() => detector.failed && fallBack(logger, detector.failed, phrases));
  return { engine: 'openwakeword', detector, phrases };
}

function logReady(logger: Logger, detector: OpenWakeWord, threshold: number): void {
  const pretrained = detector.files.filter((f) => f.source === 'package').map((f) => f.name);
  logger.info('wake.ready', {
    engine: 'openwakeword',
    models: detector.models,
    threshold,
    denoise: detector.denoising,
    ...(pretrained.length ? { licence: `${pretrained.join(', ')}: ${PRETRAINED_LICENCE}` } : {}),
  });
  if (detector.denoiseError !== undefined) {
    logger.warn('wake.denoise-unavailable', { reason: detector.denoiseError, using: 'the audio as it is' });
  }
}

function fallBack(logger: Logger, error: unknown, phrases: readonly string[]): void {
  logger.warn('wake.fallback', {
    reason: `the wake-word models could not load: ${(error as Error).message}`,
    using: `the transcript instead: every utterance is sent to the service, and a turn starts only when it begins with ${phrases.map((p) => `"${p}"`).join(' or ')}`,
  });
}
