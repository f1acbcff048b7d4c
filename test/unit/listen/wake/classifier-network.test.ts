import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NnKernels } from '../../../../src/listen/nn-kernels.js';
import { OnnxModelError } from '../../../../src/listen/onnx/onnx-constants.js';
import { SILERO_MODEL_PATH } from '../../../../src/listen/silero-vad.js';
import { ClassifierNetwork } from '../../../../src/listen/wake/classifier-network.js';
import { packageModelsDir } from '../../../../src/listen/wake/wake-models.js';

const MODELS = ['hey_jarvis_v0.1', 'alexa_v0.1', 'hey_mycroft_v0.1', 'hey_rhasspy_v0.1', 'timer_v0.1', 'weather_v0.1'];

describe('ClassifierNetwork', () => {
  it.each(MODELS)('%s scores as onnxruntime does, past its verifier too', async (name) => {
    const ort = await import('onnxruntime-node');
    const path = join(packageModelsDir() as string, `${name}.onnx`);
    const network = ClassifierNetwork.fromOnnx(new Uint8Array(readFileSync(path)), await NnKernels.load());
    const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1 });
    const frames = network.inputDims[1] as number;
    let seed = 5;
    let worst = 0;
    let fired = 0;
    for (let k = 0; k < 60; k++) {
      // Made-up embeddings, some loud enough to make the models fire.
      const amplitude = k % 3 === 0 ? 40 : 4;
      const x = new Float32Array(frames * 96).map(() => {
        seed = (seed * 48271) % 2147483647;
        return (seed / 2147483647 - 0.5) * amplitude;
      });
      const result = await session.run({
        [session.inputNames[0] as string]: new ort.Tensor('float32', x, [1, frames, 96]),
      });
      const reference = result[session.outputNames[0] as string]?.data as Float32Array;
      const ours = network.run(x);
      expect(ours).toHaveLength(reference.length);
      ours.forEach((v, i) => (worst = Math.max(worst, Math.abs(v - (reference[i] as number)))));
      if ((reference[0] as number) > 0.5) fired++;
    }
    await session.release();
    expect(worst).toBeLessThan(1e-5);
    if (name.startsWith('hey_jarvis')) expect(fired).toBeGreaterThan(5);
  });

  it('refuses a model with an operator it does not run', async () => {
    expect(() => ClassifierNetwork.fromOnnx(new Uint8Array(readFileSync(SILERO_MODEL_PATH)), {} as NnKernels)).toThrow(
      OnnxModelError,
    );
  });
});
