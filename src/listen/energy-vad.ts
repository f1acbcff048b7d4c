import { dbfs, rms } from '../audio/pcm.js';
import { NoiseFloor } from './noise-floor.js';
import { VAD_FRAME_SAMPLES } from './vad.js';

/**
 * A level-based VAD: how far a frame stands above both the configured gate and a noise
 * floor that follows the quietest recent frames. Used as the fallback when the model cannot
 * load, and as the gate in front of it.
 */
export class EnergyVad {
  readonly name = 'energy';
  readonly frameSamples = VAD_FRAME_SAMPLES;
  private readonly floor = new NoiseFloor();

  constructor(private readonly gateDbfs: number) {}

  probability(frame: Int16Array): number {
    const level = dbfs(rms(frame));
    const threshold = Math.max(this.gateDbfs, this.floor.update(level) + 9);
    return Math.min(1, Math.max(0, (level - threshold) / 15 + 0.5));
  }

  reset(): void {
    this.floor.reset();
  }

  async close(): Promise<void> {}
}
