import type { HarkConfig } from '../../config/schema.js';
import { wakePhrases } from '../../listen/wake/wake-settings.js';
import { OpenWakeWord } from '../../listen/wake/openwakeword.js';
import { WAKE_STEP_SAMPLES } from '../../listen/wake/wake-features.js';
import {
  PRETRAINED_LICENCE,
  WAKE_MODELS_PACKAGE,
  WakeModelsMissingError,
  type WakeModelFile,
} from '../../listen/wake/wake-models.js';

/** One row of `hark doctor`'s table (the same shape as doctor's CheckResult). */
export interface WakeCheckResult {
  check: string;
  status: 'ok' | 'fail' | 'skip';
  detail: string;
  fix?: string;
}

const CHECK = 'wake word';

/** Which models, from where, and the licence of the pre-trained ones, plainly. */
function describe(files: readonly WakeModelFile[]): string {
  const pretrained = files.filter((f) => f.source === 'package').map((f) => f.name);
  const own = files.filter((f) => f.source === 'file').map((f) => `${f.name} (${f.path})`);
  return [
    ...(pretrained.length
      ? [`${pretrained.join(', ')}: pre-trained, from ${WAKE_MODELS_PACKAGE}, licensed ${PRETRAINED_LICENCE}`]
      : []),
    ...(own.length ? [`your own: ${own.join(', ')}`] : []),
  ].join('; ');
}

function denoising(detector: OpenWakeWord): string {
  if (detector.denoising) return '; noise suppressed before it';
  return detector.denoiseError ? `; noise suppression unavailable (${detector.denoiseError})` : '';
}

/** Whether the configured wake word works: its models load and score a step of audio; and under which licence they are. */
export async function checkWakeWord(
  config: Pick<HarkConfig, 'wake' | 'listen'>,
  modelsDir?: string,
): Promise<WakeCheckResult> {
  const phrases = wakePhrases(config)
    .map((p) => `"${p}"`)
    .join(' or ');
  if (config.wake.engine === 'none') {
    return { check: CHECK, status: 'skip', detail: 'wake.engine is none: every utterance is a command' };
  }
  if (config.wake.engine === 'phrase') {
    return {
      check: CHECK,
      status: 'skip',
      detail: `wake.engine is phrase: every utterance is sent to the service; a turn needs ${phrases} at its start`,
    };
  }
  let detector: OpenWakeWord | undefined;
  try {
    detector = await OpenWakeWord.load({ ...config.wake, ...(modelsDir ? { modelsDir } : {}) });
    detector.push(new Int16Array(WAKE_STEP_SAMPLES));
    await detector.drain();
    return {
      check: CHECK,
      status: 'ok',
      detail: `openWakeWord hears ${detector.models.join(', ')} (${describe(detector.files)})${denoising(detector)}`,
    };
  } catch (error) {
    return {
      check: CHECK,
      status: 'fail',
      detail: error instanceof WakeModelsMissingError ? error.reason : (error as Error).message,
      fix: `${error instanceof WakeModelsMissingError ? error.fix : `reinstall with \`npm ci\` (a model of your own may need onnxruntime-node built for this CPU)`}; meanwhile hark listens for ${phrases} in the transcript instead`,
    };
  } finally {
    await detector?.close();
  }
}
