import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OnnxModelError } from '../../../../src/listen/onnx/onnx-constants.js';
import { SILERO_MODEL_PATH } from '../../../../src/listen/silero-vad.js';
import { dftWindow } from '../../../../src/listen/stft-window.js';
import { MelNetwork } from '../../../../src/listen/wake/mel-network.js';
import { OpenWakeWord } from '../../../../src/listen/wake/openwakeword.js';
import {
  packageModelsDir,
  resolveWakeModels,
  WakeModelsMissingError,
} from '../../../../src/listen/wake/wake-models.js';
import { MONOLOGUE, fixtureSamples } from '../../../helpers/speech.js';
import { WAKE_OPTIONS } from '../../../helpers/wake-clips.js';

const MEL_MODEL = join(packageModelsDir() as string, 'melspectrogram.onnx');
/** What the detector gives the model each 80 ms step: the step and the 480 samples before it. */
const STEP = 1280;
const INPUT = 480 + STEP;

/** Each step's frames from onnxruntime running the same file: the reference runtime, not hark's code. */
async function onnxruntimeFrames(inputs: Float32Array[]): Promise<Float32Array[]> {
  const ort = await import('onnxruntime-node');
  const session = await ort.InferenceSession.create(MEL_MODEL, { intraOpNumThreads: 1 });
  const out: Float32Array[] = [];
  for (const input of inputs) {
    const result = await session.run({
      [session.inputNames[0] as string]: new ort.Tensor('float32', input, [1, input.length]),
    });
    out.push(result[session.outputNames[0] as string]?.data as Float32Array);
  }
  await session.release();
  return out;
}

function stepInputs(samples: Int16Array): Float32Array[] {
  const inputs: Float32Array[] = [];
  for (let at = 0; at + INPUT <= samples.length; at += STEP)
    inputs.push(Float32Array.from(samples.subarray(at, at + INPUT)));
  return inputs;
}

describe('MelNetwork', () => {
  it("gives each step's mel frames as onnxruntime does, over 20 s of real speech and a click in silence", async () => {
    const speech = (await fixtureSamples(MONOLOGUE)).subarray(0, 16000 * 20);
    const click = new Float32Array(INPUT);
    click.fill(3000, 900, 940);
    // 11 frames: the last one transformed alone.
    const odd = Float32Array.from(speech.subarray(16000, 16000 + 512 + 160 * 10));
    const inputs = [...stepInputs(speech), odd, click];
    const network = MelNetwork.fromOnnx(new Uint8Array(readFileSync(MEL_MODEL)));
    const reference = await onnxruntimeFrames(inputs);
    let worst = 0;
    inputs.forEach((input, i) => {
      const ours = network.frames(input);
      const theirs = reference[i] as Float32Array;
      expect(ours).toHaveLength(theirs.length);
      ours.forEach((v, j) => (worst = Math.max(worst, Math.abs(v - (theirs[j] as number)))));
    });
    expect(worst).toBeLessThan(1e-3);
    // The click's silence is held at 80 dB below its loudest: the clamp is part of what was compared.
    const clicked = reference.at(-1) as Float32Array;
    const loudest = Math.max(...clicked);
    expect(clicked.filter((v) => Math.abs(v - (loudest - 80)) < 1e-3).length).toBeGreaterThan(32);
  });

  it('refuses a model that is not openWakeWord melspectrogram', () => {
    expect(() => MelNetwork.fromOnnx(new Uint8Array(readFileSync(SILERO_MODEL_PATH)))).toThrow(OnnxModelError);
  });

  it('refuses a basis that is not a windowed DFT, one holding NaN included', () => {
    const size = 8;
    const bins = size / 2 + 1;
    const real = new Float32Array(bins * size);
    const imag = new Float32Array(bins * size);
    for (let b = 0; b < bins; b++)
      for (let k = 0; k < size; k++) {
        real[b * size + k] = Math.cos((2 * Math.PI * b * k) / size);
        imag[b * size + k] = -Math.sin((2 * Math.PI * b * k) / size);
      }
    expect(dftWindow(real, imag, size, bins, 'a test')).toEqual(new Float32Array(size).fill(1));
    real[size + 3] = NaN;
    expect(() => dftWindow(real, imag, size, bins, 'a test')).toThrow(OnnxModelError);
  });

  it("names the file when the wake word's melspectrogram.onnx is another model", async () => {
    const files = { ...resolveWakeModels(['hey_jarvis']), melspectrogram: SILERO_MODEL_PATH };
    const loading = OpenWakeWord.load({ models: ['hey_jarvis'], ...WAKE_OPTIONS }, files);
    await expect(loading).rejects.toThrow(WakeModelsMissingError);
    await expect(loading).rejects.toThrow(`${SILERO_MODEL_PATH}: not openWakeWord's melspectrogram`);
  });
});
