import { dbfs, rms } from '../audio/pcm.js';
import { VAD_FRAME_SAMPLES } from './vad.js';

/**
 * A level-based VAD: how far a frame stands above both the configured gate and a noise
 * floor that follows the quietest recent frames. Used as the fallback when the model cannot
 * load, and as the gate in front of it.
 */
export class EnergyVad {
  readonly name = 'energy';
  readonly frameSamples = VAD_FRAME_SAMPLES;
  private noiseFloorDb = -70;

  constructor(private readonly gateDbfs: number) {}

  probability(frame: Int16Array): number {
    const level = dbfs(rms(frame));
    // The floor drops at once to a quieter frame and rises slowly (0.05 dB per frame).
    this.noiseFloorDb = level < this.noiseFloorDb ? level : Math.min(level, this.noiseFloorDb + 0.05);
    const threshold = Math.max(this.gateDbfs, this.noiseFloorDb + 9);
    return Math.min(1, Math.max(0, (level - threshold) / 15 + 0.5));
  }

  reset(): void {
    this.noiseFloorDb = -70;
  }

  async close(): Promise<void> {}
}
