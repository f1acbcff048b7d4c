import { join } from 'node:path';
import type * as Ort from 'onnxruntime-node';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { dbfs, rms } from '../audio/pcm.js';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE_HZ } from './vad.js';

export const SILERO_MODEL_PATH = join(PACKAGE_ROOT, 'assets', 'models', 'silero_vad_v5.onnx');

/** Silero v5 looks at the last 64 samples of the previous window as context. */
const CONTEXT_SAMPLES = 64;
const STATE_SIZE = 2 * 1 * 128;

/**
 * Silero VAD v5 through onnxruntime-node, behind an energy gate: frames quieter than the
 * gate are silence without running the model.
 */
export class SileroVad {
  readonly name = 'silero';
  readonly frameSamples = VAD_FRAME_SAMPLES;
  private state = new Float32Array(STATE_SIZE);
  private readonly input = new Float32Array(CONTEXT_SAMPLES + VAD_FRAME_SAMPLES);
  private readonly sampleRate: Ort.Tensor;

  private constructor(
    private readonly ort: typeof Ort,
    private readonly session: Ort.InferenceSession,
    private readonly gateDbfs: number,
  ) {
    this.sampleRate = new ort.Tensor('int64', BigInt64Array.from([BigInt(VAD_SAMPLE_RATE_HZ)]), []);
  }

  static async load(gateDbfs: number, modelPath = SILERO_MODEL_PATH): Promise<SileroVad> {
    const ort = await import('onnxruntime-node');
    const session = await ort.InferenceSession.create(modelPath, {
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      executionMode: 'sequential',
      graphOptimizationLevel: 'all',
    });
    return new SileroVad(ort, session, gateDbfs);
  }

  async probability(frame: Int16Array): Promise<number> {
    if (frame.length !== VAD_FRAME_SAMPLES) throw new Error(`Silero VAD takes ${VAD_FRAME_SAMPLES}-sample frames`);
    if (dbfs(rms(frame)) < this.gateDbfs) {
      this.keepContext(frame);
      return 0;
    }
    const input = this.input;
    for (let i = 0; i < VAD_FRAME_SAMPLES; i++) input[CONTEXT_SAMPLES + i] = (frame[i] as number) / 32768;
    const result = await this.session.run({
      input: new this.ort.Tensor('float32', input, [1, input.length]),
      state: new this.ort.Tensor('float32', this.state, [2, 1, 128]),
      sr: this.sampleRate,
    });
    this.state = new Float32Array(result.stateN?.data as Float32Array);
    input.copyWithin(0, VAD_FRAME_SAMPLES);
    return (result.output?.data as Float32Array)[0] ?? 0;
  }

  reset(): void {
    this.state = new Float32Array(STATE_SIZE);
    this.input.fill(0);
  }

  async close(): Promise<void> {
    await this.session.release();
  }

  private keepContext(frame: Int16Array): void {
    for (let i = 0; i < CONTEXT_SAMPLES; i++) {
      this.input[i] = (frame[VAD_FRAME_SAMPLES - CONTEXT_SAMPLES + i] as number) / 32768;
    }
  }
}
