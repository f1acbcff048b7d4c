import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { NnKernels } from '../../../src/listen/nn-kernels.js';
import { SILERO_INPUT_SAMPLES, SILERO_STATE_SIZE, SileroNetwork } from '../../../src/listen/silero-network.js';
import { SILERO_MODEL_PATH } from '../../../src/listen/silero-vad.js';
import { OnnxModelError } from '../../../src/listen/onnx/onnx-constants.js';
import { MONOLOGUE, fixtureSamples } from '../../helpers/speech.js';

const FRAME = SILERO_INPUT_SAMPLES - 64;

/** Each frame's probability from onnxruntime running the same file: the reference runtime, not hark's code. */
async function onnxruntimeScores(samples: Int16Array): Promise<number[]> {
  const ort = await import('onnxruntime-node');
  const session = await ort.InferenceSession.create(SILERO_MODEL_PATH, { intraOpNumThreads: 1 });
  const sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
  const input = new Float32Array(SILERO_INPUT_SAMPLES);
  let state = new Float32Array(SILERO_STATE_SIZE);
  const out: number[] = [];
  for (let at = 0; at + FRAME <= samples.length; at += FRAME) {
    for (let i = 0; i < FRAME; i++) input[64 + i] = (samples[at + i] as number) / 32768;
    const result = await session.run({
      input: new ort.Tensor('float32', input, [1, SILERO_INPUT_SAMPLES]),
      state: new ort.Tensor('float32', state, [2, 1, 128]),
      sr,
    });
    state = new Float32Array(result.stateN?.data as Float32Array);
    out.push((result.output?.data as Float32Array)[0] as number);
    input.copyWithin(0, FRAME);
  }
  await session.release();
  return out;
}

function hark(network: SileroNetwork, samples: Int16Array): number[] {
  const input = new Float32Array(SILERO_INPUT_SAMPLES);
  const state = new Float32Array(SILERO_STATE_SIZE);
  const out: number[] = [];
  for (let at = 0; at + FRAME <= samples.length; at += FRAME) {
    for (let i = 0; i < FRAME; i++) input[64 + i] = (samples[at + i] as number) / 32768;
    out.push(network.probability(input, state));
    input.copyWithin(0, FRAME);
  }
  return out;
}

describe('SileroNetwork', () => {
  it('scores 20 s of real speech as onnxruntime does, frame by frame (its state carried through)', async () => {
    const speech = (await fixtureSamples(MONOLOGUE)).subarray(0, 16000 * 20);
    const network = SileroNetwork.fromOnnx(new Uint8Array(readFileSync(SILERO_MODEL_PATH)), await NnKernels.load());
    const ours = hark(network, speech);
    const reference = await onnxruntimeScores(speech);
    expect(ours).toHaveLength(reference.length);
    const worst = Math.max(...ours.map((p, i) => Math.abs(p - (reference[i] as number))));
    expect(worst).toBeLessThan(1e-4);
    // The clip holds both speech and pauses, so the comparison covers both verdicts.
    expect(reference.filter((p) => p > 0.5).length).toBeGreaterThan(50);
    expect(reference.filter((p) => p < 0.1).length).toBeGreaterThan(10);
  });

  it('refuses a model that is not Silero v5, saying what it lacks', async () => {
    const kernels = await NnKernels.load();
    expect(() => SileroNetwork.fromOnnx(new Uint8Array([0x3a, 0x00]), kernels)).toThrow(OnnxModelError);
    expect(() => SileroNetwork.fromOnnx(new Uint8Array([0x0a, 0x00]), kernels)).toThrow(/no graph/);
  });
});
