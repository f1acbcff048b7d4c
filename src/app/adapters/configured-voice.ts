import type { HarkConfig } from '../../config/schema.js';
import type { SpeechRequest, VoiceReference } from '../../contract/wire.js';
import type { Logger } from '../../system/logger.js';
import { prepareReference, type PreparedReference } from '../../voice/reference.js';

/** What `hark voice test` and the status page's voice test say when not told what to say. */
export const VOICE_SAMPLE = 'Hello! This is how I sound. Do you like my voice?';

/** A few words on which voice hark will speak with. */
export function describeVoice(config: HarkConfig, reference?: { durationMs: number }): string {
  if (config.voice.reference && reference) {
    return `cloned from ${config.voice.reference} (${(reference.durationMs / 1000).toFixed(1)} s)`;
  }
  if (config.speech.voice)
    return `system voice "${config.speech.voice}"${config.speech.instructions ? ' with a style' : ''}`;
  if (config.speech.instructions) return `designed voice: "${config.speech.instructions}"`;
  return 'the service default voice';
}

/** The clone reference, prepared once at start-up; a clip that cannot work fails here, not at the first sentence. */
export async function configuredReference(
  config: HarkConfig,
  logger: Logger,
): Promise<Pick<PreparedReference, 'reference' | 'durationMs' | 'cachedAt' | 'fromCache'> | undefined> {
  if (!config.voice.reference) return undefined;
  const prepared = await prepareReference(config.voice.reference, config.voice.referenceText);
  for (const warning of prepared.warnings) logger.warn('voice.reference', { warning });
  logger.info('voice.reference', {
    file: config.voice.reference,
    seconds: Math.round(prepared.durationMs / 100) / 10,
    cached: prepared.fromCache,
    cachedAt: prepared.cachedAt,
  });
  return prepared;
}

/** A speech request for `text` in the configured voice: a clone, a system voice, or the service default. */
export function speechRequest(text: string, speech: HarkConfig['speech'], reference?: VoiceReference): SpeechRequest {
  return {
    input: text,
    model: speech.model,
    response_format: 'pcm',
    sample_rate: speech.sampleRateHz,
    speed: speech.speed,
    volume: speech.volume,
    pitch: speech.pitch,
    ...(reference ? { references: [reference] } : speech.voice ? { voice: speech.voice } : {}),
    ...(speech.instructions ? { instructions: speech.instructions } : {}),
  };
}
