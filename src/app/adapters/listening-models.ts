import type { HarkConfig } from '../../config/schema.js';
import { EnergyVad } from '../../listen/energy-vad.js';
import { LIVE_DETECTOR, wakePhrases } from '../../listen/wake/wake-settings.js';
import {
  PRETRAINED_LICENCE,
  resolveWakeModels,
  type WakeModelFile,
  type WakeModelFiles,
} from '../../listen/wake/wake-models.js';
import type { Vad } from '../../pipeline/ports.js';
import { withinDeadline } from '../../system/deadline.js';
import type { Logger } from '../../system/logger.js';
import { LoadingVad } from './loading-vad.js';
import { LoadingWakeWord } from './loading-wake-word.js';
import { sileroGate, type ListeningSetup } from './listening-messages.js';
import { ListeningThread, type WakeReady } from './listening-thread.js';

// The models hark listens with, started at once in a thread of their own: they load (~0.25 s
// here, many seconds on a small board) while hark already listens, and what it hears
// meanwhile waits for them.

/**
 * How long hark waits for its models while it listens: on a slow board they take seconds, but a
 * load that never ends would leave it listening to nothing (and holding all it heard).
 */
export const MODELS_LOAD_LIMIT_MS = 60_000;

/**
 * What stands between speech and the service: a wake word heard on the device (or, should its
 * models fail to load, the transcript's `phrases`), a phrase in the transcript, or nothing.
 */
export type WakeGate =
  | { engine: 'openwakeword'; detector: LoadingWakeWord; phrases: string[] }
  | { engine: 'phrase'; phrases: string[] }
  | { engine: 'none' };

export interface Listening {
  vad: Vad;
  wake: WakeGate;
  /** A full garbage collection in the listening thread, if it runs. */
  collectGarbage(): void;
}

export interface ListeningOptions {
  /** The wake-word models' directory, if not the package's (tests). */
  modelsDir?: string;
  /** Silero's model file, if not the packaged one (tests). */
  sileroPath?: string;
  /** A live microphone (the detector keeps pace with it), or a file read faster than real time, scored whole. */
  live?: boolean;
  /** Models not loaded when this is aborted: the energy VAD, and the transcript's wake phrase, instead. */
  deadline?: AbortSignal;
}

/**
 * The configured VAD and wake gate, at once: Silero and openWakeWord load in the listening thread
 * while hark already listens (see LoadingVad, LoadingWakeWord). Should Silero fail to load, the energy
 * VAD scores instead; should the wake-word models be missing or fail, hark listens for the
 * transcript's wake phrases (never to everything). The log says why.
 */
export function startListening(
  config: Pick<HarkConfig, 'vad' | 'wake' | 'listen'>,
  logger: Logger,
  options: ListeningOptions = {},
): Listening {
  const { live = true, deadline = new AbortController().signal } = options;
  const silero = config.vad.engine === 'silero';
  const phrases = wakePhrases(config);
  let files: WakeModelFiles | undefined;
  if (config.wake.engine === 'openwakeword') {
    try {
      files = resolveWakeModels(config.wake.models, options.modelsDir);
    } catch (error) {
      fallBack(logger, error, phrases);
    }
  }
  const setup: ListeningSetup = {
    silero: silero
      ? { ...sileroGate(config.vad), ...(options.sileroPath ? { modelPath: options.sileroPath } : {}) }
      : undefined,
    // A file read faster than real time is scored whole; a live microphone is kept up with.
    wake: files && {
      options: { ...config.wake, ...(live ? LIVE_DETECTOR : {}) },
      files,
    },
  };
  const thread = setup.silero || setup.wake ? new ListeningThread(setup) : undefined;
  const vad = thread?.vad
    ? new LoadingVad(vadOf(thread.vad, config.vad, logger, deadline), 'silero')
    : new EnergyVad(config.vad.energyGateDbfs);
  const collectGarbage = (): void => thread?.collectGarbage();
  if (config.wake.engine === 'none') return { vad, wake: { engine: 'none' }, collectGarbage };
  if (!thread?.wake || !files) return { vad, wake: { engine: 'phrase', phrases }, collectGarbage };
  const classifiers = files.classifiers;
  const loading = withinDeadline(thread.wake, deadline, (late) => late.close()).then((loaded) => {
    logReady(logger, loaded, classifiers, config.wake.threshold);
    return loaded;
  });
  const detector = new LoadingWakeWord(loading);
  void detector.loaded.then(() => detector.loadError && fallBack(logger, detector.loadError, phrases));
  return { vad, wake: { engine: 'openwakeword', detector, phrases }, collectGarbage };
}

/** Silero from the thread once it has loaded; if it cannot (in time), the energy VAD, and the log says why. */
async function vadOf(
  loading: Promise<Vad>,
  config: HarkConfig['vad'],
  logger: Logger,
  deadline: AbortSignal,
): Promise<Vad> {
  try {
    const vad = await withinDeadline(loading, deadline, (late) => late.close());
    logger.info('vad.ready', { engine: vad.name });
    return vad;
  } catch (error) {
    logger.warn('vad.fallback', {
      reason: `the Silero model could not load: ${(error as Error).message}`,
      using: 'energy VAD (less robust to noise)',
    });
    return new EnergyVad(config.energyGateDbfs);
  }
}

function logReady(logger: Logger, detector: WakeReady, files: readonly WakeModelFile[], threshold: number): void {
  const pretrained = files.filter((f) => f.source === 'package').map((f) => f.name);
  logger.info('wake.ready', {
    engine: 'openwakeword',
    models: detector.models,
    threshold,
    denoise: detector.denoising,
    embedding: detector.embeddingStreamed ? 'streamed' : 'whole windows',
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
