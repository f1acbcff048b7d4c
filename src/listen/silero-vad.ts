import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { dbfs, rms } from '../audio/pcm.js';
import { NnKernels } from './nn-kernels.js';
import { NoiseFloor } from './noise-floor.js';
import { SILERO_INPUT_SAMPLES, SILERO_STATE_SIZE, SileroNetwork } from './silero-network.js';
import { VAD_FRAME_SAMPLES } from './vad.js';

export const SILERO_MODEL_PATH = join(PACKAGE_ROOT, 'assets', 'models', 'silero_vad_v5.onnx');

/** Silero v5 looks at the last 64 samples of the previous window as context. */
const CONTEXT_SAMPLES = SILERO_INPUT_SAMPLES - VAD_FRAME_SAMPLES;

/** Below this the model's last verdict was silence, so a quiet frame may skip it. */
const SILENT = 0.1;
/**
 * The room's noise is louder than its floor in some frames (pink noise in 32 ms frames spans
 * 7 dB): the model heard 1 in 4 of a quiet room's frames at the floor's margin alone. So the mark
 * under which a frame is quiet also rises to what the model has lately judged silence, 1 dB per
 * such frame at most (a sudden loud frame the model misjudged does not lift it much), and sinks
 * back slowly.
 */
const MARK_STEP_DB = 1;
const MARK_SINK_DB_PER_FRAME = 0.008;

/** Which frames may skip the model: those within `marginDb` of the room's noise floor, never louder than `capDbfs`. */
export interface VadGate {
  capDbfs: number;
  marginDb: number;
}

/**
 * Silero VAD v5 (`silero-network.ts`), behind a gate that saves CPU and never drops speech:
 * a frame skips the model only while the model's last verdict was silence and the frame is
 * within a few dB of the room's noise floor (followed as it changes, so a quiet talker is never
 * gated). So the model sees every frame of speech and of the silence after it until it says
 * silence: its recurrent state is never left frozen "mid-speech" to score the next click or
 * earcon as speech. (Resetting the state after a skipped stretch instead cost a quiet talker a
 * fifth of the voiced frames in our tests: the model needs a few frames to warm up.)
 */
export class SileroVad {
  readonly name = 'silero';
  readonly frameSamples = VAD_FRAME_SAMPLES;
  private readonly state = new Float32Array(SILERO_STATE_SIZE);
  private readonly input = new Float32Array(SILERO_INPUT_SAMPLES);
  private readonly floor = new NoiseFloor();
  /** How far above the floor's margin frames the model judged silence have lately been (dB). */
  private markAboveDb = 0;
  private last = 0;
  private constructor(
    private readonly network: SileroNetwork,
    private readonly gate: VadGate,
  ) {}

  static async load(gate: VadGate, modelPath = SILERO_MODEL_PATH): Promise<SileroVad> {
    const [model, kernels] = await Promise.all([readFile(modelPath), NnKernels.load()]);
    return new SileroVad(SileroNetwork.fromOnnx(new Uint8Array(model), kernels), gate);
  }

  /** A frame's speech probability, frames in the order they were heard (the model's state runs from one to the next). */
  probability(frame: Int16Array): Promise<number> {
    return new Promise((resolve) => resolve(this.score(frame)));
  }

  private score(frame: Int16Array): number {
    if (frame.length !== VAD_FRAME_SAMPLES) throw new Error(`Silero VAD takes ${VAD_FRAME_SAMPLES}-sample frames`);
    const level = dbfs(rms(frame));
    const floor = this.floor.update(level);
    this.markAboveDb = Math.max(0, this.markAboveDb - MARK_SINK_DB_PER_FRAME);
    const mark = floor + this.gate.marginDb + this.markAboveDb;
    if (this.last < SILENT && level < Math.min(this.gate.capDbfs, mark)) {
      this.keepContext(frame);
      return 0;
    }
    const input = this.input;
    for (let i = 0; i < VAD_FRAME_SAMPLES; i++) input[CONTEXT_SAMPLES + i] = (frame[i] as number) / 32768;
    this.last = this.network.probability(input, this.state);
    input.copyWithin(0, VAD_FRAME_SAMPLES);
    if (this.last < SILENT && level >= mark) this.markAboveDb += Math.min(level - mark, MARK_STEP_DB);
    return this.last;
  }

  reset(): void {
    this.state.fill(0);
    this.input.fill(0);
    this.floor.reset();
    this.markAboveDb = 0;
    this.last = 0;
  }

  /** Nothing to release: the model's memory goes with the instance. */
  async close(): Promise<void> {}

  private keepContext(frame: Int16Array): void {
    for (let i = 0; i < CONTEXT_SAMPLES; i++) {
      this.input[i] = (frame[VAD_FRAME_SAMPLES - CONTEXT_SAMPLES + i] as number) / 32768;
    }
  }
}
