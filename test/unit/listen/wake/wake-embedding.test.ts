/**
 * The embedding model cut into stages gives the numbers of the whole model, run here on each
 * window directly through onnxruntime: for the steps' windows one after another, a batch of
 * them, the windows between steps (other phases) asked in any order, after a gap, and going
 * back. The same up to float rounding: bit for bit where onnxruntime picks the same kernels
 * for both (x86-64), while a window misread is off by whole values.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NnKernels } from '../../../../src/listen/nn-kernels.js';
import { cutAtTimePools } from '../../../../src/listen/wake/embedding-stages.js';
import {
  EMBEDDING_FRAMES,
  EMBEDDING_SIZE,
  MEL_BINS,
  type MelRows,
} from '../../../../src/listen/wake/embedding-stream.js';
import { WakeEmbedding } from '../../../../src/listen/wake/wake-embedding.js';
import { packageModelsDir } from '../../../../src/listen/wake/wake-models.js';
import { FIXTURES, fixtureSamples } from '../../../helpers/speech.js';

const MODELS = packageModelsDir() as string;
const EMBEDDING_MODEL = join(MODELS, 'embedding_model.onnx');
const OPTIONS = { intraOpNumThreads: 1, interOpNumThreads: 1 } as const;

/** Mel frames of a spoken wake word and its command, as the detector scales them. */
async function melFrames(): Promise<Float32Array> {
  const samples = await fixtureSamples(join(FIXTURES, 'wake-hey-jarvis.ogg'));
  const session = await ort.InferenceSession.create(join(MODELS, 'melspectrogram.onnx'), OPTIONS);
  const input = Float32Array.from(samples.subarray(0, 16000 * 3));
  const result = await session.run({
    [session.inputNames[0] as string]: new ort.Tensor('float32', input, [1, input.length]),
  });
  await session.release();
  return (result[session.outputNames[0] as string]?.data as Float32Array).map((v) => v / 10 + 2);
}

describe('WakeEmbedding', () => {
  let frames: Float32Array;
  let whole: ort.InferenceSession;
  let staged: WakeEmbedding;
  beforeAll(async () => {
    frames = await melFrames();
    whole = await ort.InferenceSession.create(EMBEDDING_MODEL, OPTIONS);
    staged = (await WakeEmbedding.staged(ort, EMBEDDING_MODEL, OPTIONS)) as WakeEmbedding;
  });
  afterAll(async () => {
    await whole.release();
    await staged.release();
  });

  /** The whole model's embedding of the window starting at frame `start` of `frames`. */
  async function truth(start: number): Promise<Float32Array> {
    const window = frames.slice(start * MEL_BINS, (start + EMBEDDING_FRAMES) * MEL_BINS);
    const result = await whole.run({
      [whole.inputNames[0] as string]: new ort.Tensor('float32', window, [1, EMBEDDING_FRAMES, MEL_BINS, 1]),
    });
    return result[whole.outputNames[0] as string]?.data as Float32Array;
  }

  async function truths(starts: readonly number[]): Promise<Float32Array> {
    const out = new Float32Array(starts.length * EMBEDDING_SIZE);
    for (const [i, start] of starts.entries()) out.set(await truth(start), i * EMBEDDING_SIZE);
    return out;
  }

  /** The largest difference between two sets of embeddings, against the largest value expected. */
  function expectSame(actual: Float32Array, expected: Float32Array): void {
    expect(actual).toHaveLength(expected.length);
    const scale = expected.reduce((most, v) => Math.max(most, Math.abs(v)), 1);
    const worst = actual.reduce((most, v, i) => Math.max(most, Math.abs(v - (expected[i] as number))), 0);
    expect(worst / scale).toBeLessThan(1e-5);
  }

  /** The frames from `first` on, as a detector holds them after dropping older ones. */
  const rows = (first = 0): MelRows => ({ first, frames: frames.subarray(first * MEL_BINS) });

  it('cuts openWakeWord’s embedding model at the three pools that halve time', () => {
    const stages = cutAtTimePools(readFileSync(EMBEDDING_MODEL));
    expect(stages?.map((s) => [s.context, s.shrink])).toEqual([
      [4, 2],
      [8, 2],
      [8, 2],
      [2, 1],
    ]);
    expect(staged.streamed).toBe(true);
  });

  it('loads openWakeWord’s model on hark’s kernels, without onnxruntime', async () => {
    const loadOrt = vi.fn(() => Promise.resolve(ort));
    const loaded = await WakeEmbedding.load(EMBEDDING_MODEL, await NnKernels.load(), loadOrt, OPTIONS);
    expect(loaded.streamed).toBe(true);
    expect(loadOrt).not.toHaveBeenCalled();
    expectSame(await loaded.stream().embed(rows(), [0, 8, 16]), await truths([0, 8, 16]));
    await loaded.release();
  });

  it('loads the model cut in onnxruntime, its stages checked against the whole model', async () => {
    const loaded = await WakeEmbedding.inOnnxruntime(ort, EMBEDDING_MODEL, OPTIONS);
    expect(loaded.streamed).toBe(true);
    await loaded.release();
  });

  it('does not cut a model that is not such a chain (the mel spectrogram)', () => {
    expect(cutAtTimePools(readFileSync(join(MODELS, 'melspectrogram.onnx')))).toBeUndefined();
    expect(() => cutAtTimePools(Uint8Array.from([0x0a, 0x05, 1]))).toThrow(/runs past the end/);
  });

  describe.each([
    ['in onnxruntime', () => Promise.resolve(staged)],
    ['on hark’s kernels', async () => (await WakeEmbedding.onKernels(EMBEDDING_MODEL, await NnKernels.load()))!],
  ])('its stages %s', (_, make: () => Promise<WakeEmbedding>) => {
    let staged: WakeEmbedding;
    beforeAll(async () => {
      staged = await make();
    });

    it('gives the steps’ windows one after another the whole model’s numbers', async () => {
      const stream = staged.stream();
      for (let start = 0; start + EMBEDDING_FRAMES <= 200; start += 8) {
        expectSame(await stream.embed(rows(), [start]), await truth(start));
      }
    });

    it('gives a batch of steps, and windows between steps in any order, the whole model’s numbers', async () => {
      const stream = staged.stream();
      const steps = [40, 48, 56, 64];
      expectSame(await stream.embed(rows(), steps), await truths(steps));
      const between = [68, 36, 60, 52, 44, 66];
      expectSame(await stream.embed(rows(), between), await truths(between));
      const next = [72, 76, 80];
      expectSame(await stream.embed(rows(), next), await truths(next));
    });

    it('gives the steps of a recording asked at once (computed a few at a time) the whole model’s numbers', async () => {
      const steps = Array.from({ length: 24 }, (_, i) => 8 + i * 8);
      expectSame(await staged.stream().embed(rows(), steps), await truths(steps));
    });

    it('starts a phase afresh after a gap longer than a window, from the frames it still has', async () => {
      const stream = staged.stream();
      await stream.embed(rows(), [0]);
      expectSame(await stream.embed(rows(120), [160]), await truth(160));
      expectSame(await stream.embed(rows(120), [168, 176]), await truths([168, 176]));
    });

    it('goes back to an earlier window of a phase, afresh', async () => {
      const stream = staged.stream();
      await stream.embed(rows(), [80]);
      expectSame(await stream.embed(rows(), [40]), await truth(40));
      expectSame(await stream.embed(rows(), [48]), await truth(48));
    });
  });

  it('loads a model it cannot cut (a field it does not read) to run on each window whole', async () => {
    const model = readFileSync(EMBEDDING_MODEL);
    // An unknown field written as a group (wire types 3 and 4): protobuf skips it, the cut does not read groups.
    const path = join(mkdtempSync(join(tmpdir(), 'hark-embedding-')), 'embedding_model.onnx');
    writeFileSync(path, Buffer.concat([model, Buffer.from([0x9b, 0x06, 0x9c, 0x06])]));
    const loadOrt = vi.fn(() => Promise.resolve(ort));
    const loaded = await WakeEmbedding.load(path, await NnKernels.load(), loadOrt, OPTIONS);
    expect(loadOrt).toHaveBeenCalled();
    expect(loaded.streamed).toBe(false);
    expectSame(await loaded.stream().embed(rows(), [0, 8]), await truths([0, 8]));
    await loaded.release();
  });

  it('runs a model on each window whole with the same numbers', async () => {
    const fallback = await WakeEmbedding.whole(ort, EMBEDDING_MODEL, OPTIONS);
    const starts = [0, 8, 12, 100, 104, 108, 112, 116];
    expect(fallback.streamed).toBe(false);
    expectSame(await fallback.stream().embed(rows(), starts), await truths(starts));
    await fallback.release();
  });
});
