import type { HarkConfig } from '../config/schema.js';
import { withinDeadline } from '../system/deadline.js';
import type { Logger } from '../system/logger.js';
import { EnergyVad } from './energy-vad.js';
import { SileroVad } from './silero-vad.js';

export interface LoadVadOptions {
  /** Silero's model file, if not the packaged one. */
  modelPath?: string;
  /** Silero not loaded when this is aborted: the energy VAD instead (a Silero loaded later is closed). */
  deadline?: AbortSignal;
}

/** The configured VAD; if the Silero model cannot load (in time), the energy VAD, and the log says why. */
export async function loadVad(
  config: HarkConfig['vad'],
  logger: Logger,
  { modelPath, deadline = new AbortController().signal }: LoadVadOptions = {},
): Promise<SileroVad | EnergyVad> {
  if (config.engine === 'energy') return new EnergyVad(config.energyGateDbfs);
  try {
    const loading = SileroVad.load({ capDbfs: config.energyGateDbfs, marginDb: config.gateMarginDb }, modelPath);
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
