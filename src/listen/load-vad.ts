import type { HarkConfig } from '../config/schema.js';
import type { Logger } from '../system/logger.js';
import { EnergyVad } from './energy-vad.js';
import { SileroVad } from './silero-vad.js';

/** The configured VAD; if the Silero model cannot load, the energy VAD, and the log says why. */
export async function loadVad(
  config: HarkConfig['vad'],
  logger: Logger,
  modelPath?: string,
): Promise<SileroVad | EnergyVad> {
  if (config.engine === 'energy') return new EnergyVad(config.energyGateDbfs);
  try {
    const vad = await SileroVad.load({ capDbfs: config.energyGateDbfs, marginDb: config.gateMarginDb }, modelPath);
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
