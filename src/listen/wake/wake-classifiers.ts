import { readFile } from 'node:fs/promises';
import type * as Ort from 'onnxruntime-node';
import type { RowKernels } from '../nn-rows.js';
import { notForHark } from '../onnx/onnx-constants.js';
import { ClassifierNetwork } from './classifier-network.js';
import { EMBEDDING_SIZE } from './wake-features.js';
import { WakeModelsMissingError, type WakeModelFile } from './wake-models.js';

const NOT_A_MODEL_FIX = 'give the path of an openWakeWord classifier (.onnx), or the name of a pre-trained one';

/**
 * openWakeWord's wake-word classifiers: each reads the last N embeddings (16 for most, more for
 * longer phrases) and gives a score 0..1, or, for a multi-class model such as `timer`, one score
 * per class with class 0 meaning "none of them".
 */
export interface WakeClassifier {
  /** Its outputs for the embeddings it reads. */
  run(embeddings: Float32Array): Promise<Float32Array>;
  release(): Promise<void>;
  /** Embeddings it reads. */
  readonly frames: number;
  /** The labels it scores, and which output each is. */
  readonly labels: string[];
  readonly outputs: number[];
}

/** What a classifier is, whichever runs it. */
interface Shape {
  run(embeddings: Float32Array): Promise<Float32Array>;
  release(): Promise<void>;
  outputName: string;
  inputDims: readonly (number | string | undefined)[];
  outputDims: readonly (number | string | undefined)[];
}

/**
 * The classifier in `model`: run by hark when it is made of the operators openWakeWord's
 * classifiers use, else by onnxruntime (loaded then, by `loadOrt`).
 */
export async function loadClassifier(
  model: WakeModelFile,
  kernels: RowKernels,
  loadOrt: () => Promise<typeof Ort>,
  options: Ort.InferenceSession.SessionOptions,
): Promise<WakeClassifier> {
  const bytes = await readFile(model.path);
  let shape: Shape;
  try {
    const network = ClassifierNetwork.fromOnnx(bytes, kernels);
    shape = {
      run: (embeddings) => Promise.resolve(network.run(embeddings)),
      release: () => Promise.resolve(),
      outputName: network.outputName,
      inputDims: network.inputDims,
      outputDims: network.outputDims,
    };
  } catch (error) {
    // What hark does not run (another operator), or what it cannot read, goes to onnxruntime, which
    // says why a file is no model at all.
    if (!notForHark(error)) throw error;
    shape = await onnxruntimeShape(await loadOrt(), model, options);
  }
  const { outputName, inputDims, outputDims } = shape;
  const frames = inputDims[1];
  const classes = outputDims[1];
  if (typeof frames !== 'number' || inputDims[2] !== EMBEDDING_SIZE) {
    await shape.release();
    throw new WakeModelsMissingError(
      `${model.path} is not an openWakeWord model (its input is [${inputDims.join(', ')}])`,
      NOT_A_MODEL_FIX,
    );
  }
  const run = (embeddings: Float32Array): Promise<Float32Array> => shape.run(embeddings);
  const release = (): Promise<void> => shape.release();
  if (typeof classes !== 'number' || classes <= 1) {
    return { run, release, frames, labels: [model.name], outputs: [0] };
  }
  const names = classLabels(outputName);
  const outputs = Array.from({ length: classes - 1 }, (_, i) => i + 1);
  return { run, release, frames, labels: outputs.map((i) => names[String(i)] ?? `${model.name}_${i}`), outputs };
}

async function onnxruntimeShape(
  ort: typeof Ort,
  model: WakeModelFile,
  options: Ort.InferenceSession.SessionOptions,
): Promise<Shape> {
  const session = await ort.InferenceSession.create(model.path, options).catch((error: unknown) => {
    // onnxruntime's own words: "Load model from PATH failed:Protobuf parsing failed."
    const why = String((error as Error).message)
      .replace(/^.*failed:\s*/s, '')
      .replace(/\.$/, '');
    throw new WakeModelsMissingError(
      `${model.path}: not a wake-word model (onnxruntime cannot read it as ONNX: ${why})`,
      NOT_A_MODEL_FIX,
    );
  });
  const inputName = session.inputNames[0] ?? '';
  const outputName = session.outputNames[0] ?? '';
  const input = session.inputMetadata[0];
  const output = session.outputMetadata[0];
  const inputDims = input?.isTensor ? input.shape : [];
  return {
    run: async (embeddings) => {
      const frames = inputDims[1] as number;
      const result = await session.run({
        [inputName]: new ort.Tensor('float32', embeddings, [1, frames, EMBEDDING_SIZE]),
      });
      return result[outputName]?.data as Float32Array;
    },
    release: () => session.release(),
    outputName,
    inputDims,
    outputDims: output?.isTensor ? output.shape : [],
  };
}

/** openWakeWord names a multi-class model's output by its class labels, as JSON. */
function classLabels(outputName: string): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(outputName);
    if (parsed && typeof parsed === 'object') {
      return Object.fromEntries(Object.entries(parsed).filter((e): e is [string, string] => typeof e[1] === 'string'));
    }
  } catch {
    // a plain output name: labels are numbered
  }
  return {};
}

/** Scores of every label of `classifier`, into `into` from `offset`, given the embeddings it reads. */
export async function classify(
  classifier: WakeClassifier,
  embeddings: Float32Array,
  into: Float32Array,
  offset: number,
): Promise<void> {
  const data = await classifier.run(embeddings);
  classifier.outputs.forEach((output, i) => (into[offset + i] = data[output] ?? 0));
}
