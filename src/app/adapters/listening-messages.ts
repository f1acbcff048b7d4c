import type { HarkConfig } from '../../config/schema.js';
import type { OpenWakeWordOptions } from '../../listen/wake/openwakeword.js';
import type { WakeModelFiles } from '../../listen/wake/wake-models.js';
import type { WakeBacklog, WakeWordDetection, WakeWordScores } from '../../pipeline/ports.js';

/** What the listening thread is started with: which models to load, and how. */
export interface ListeningSetup {
  /** Silero's gate (and model file, if not the packaged one), when Silero is the VAD (else the energy VAD runs in the main thread). */
  silero: { capDbfs: number; marginDb: number; modelPath?: string } | undefined;
  /** openWakeWord's options and model files, when the wake word is heard on the device. */
  wake: { options: OpenWakeWordOptions; files: WakeModelFiles } | undefined;
}

/** To the listening thread. Frames are copies, their buffers handed over. */
export type ToListening =
  /** A frame for the VAD (`vad`), the wake word (`wake`), or both. */
  | { type: 'frame'; samples: Int16Array; vad: boolean; wake: boolean }
  | { type: 'vad-reset' }
  | { type: 'wake-reset' }
  | { type: 'drain'; id: number }
  /** A full garbage collection in the thread (see collectGarbage). */
  | { type: 'collect' }
  | { type: 'close' };

/** From the listening thread. */
export type FromListening =
  | { type: 'vad-ready' }
  | { type: 'vad-failed'; message: string }
  | {
      type: 'wake-ready';
      models: string[];
      denoising: boolean;
      denoiseError: string | undefined;
      embeddingStreamed: boolean;
    }
  | { type: 'wake-failed'; message: string }
  /** The VAD's speech probability of the frames sent for it, in order. */
  | { type: 'probability'; value: number }
  | { type: 'scores'; scores: WakeWordScores }
  | { type: 'detection'; detection: WakeWordDetection }
  | { type: 'backlog'; backlog: WakeBacklog }
  | { type: 'drained'; id: number }
  /** A model failed while running: what was asked of it fails, and the main thread carries on without it. */
  | { type: 'failed'; model: 'vad' | 'wake'; message: string }
  | { type: 'closed' };

/** Silero's gate from the configuration. */
export function sileroGate(config: HarkConfig['vad']): { capDbfs: number; marginDb: number } {
  return { capDbfs: config.energyGateDbfs, marginDb: config.gateMarginDb };
}
