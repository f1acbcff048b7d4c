import type * as Ort from 'onnxruntime-node';
import { EMBEDDING_SIZE } from './wake-features.js';
import { WakeModelsMissingError, type WakeModelFile } from './wake-models.js';

const NOT_A_MODEL_FIX = 'give the path of an openWakeWord classifier (.onnx), or the name of a pre-trained one';

/**
 * openWakeWord's wake-word classifiers: each reads the last N embeddings (16 for most, more for
 * longer phrases) and gives a score 0..1, or, for a multi-class model such as `timer`, one score
 * per class with class 0 meaning "none of them".
 */
export interface WakeClassifier {
  readonly session: Ort.InferenceSession;
  readonly inputName: string;
  readonly outputName: string;
  /** Embeddings it reads. */
  readonly frames: number;
  /** The labels it scores, and which output each is. */
  readonly labels: string[];
  readonly outputs: number[];
}

export async function loadClassifier(
  ort: typeof Ort,
  model: WakeModelFile,
  options: Ort.InferenceSession.SessionOptions,
): Promise<WakeClassifier> {
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
  const inputName = session.inputNames[0];
  const outputName = session.outputNames[0];
  const input = session.inputMetadata[0];
  const output = session.outputMetadata[0];
  const inputShape = input?.isTensor ? input.shape : [];
  const outputShape = output?.isTensor ? output.shape : [];
  const frames = inputShape[1];
  const classes = outputShape[1];
  if (!inputName || !outputName || typeof frames !== 'number' || inputShape[2] !== EMBEDDING_SIZE) {
    await session.release();
    throw new WakeModelsMissingError(
      `${model.path} is not an openWakeWord model (its input is [${inputShape.join(', ')}])`,
      NOT_A_MODEL_FIX,
    );
  }
  if (typeof classes !== 'number' || classes <= 1) {
    return { session, inputName, outputName, frames, labels: [model.name], outputs: [0] };
  }
  const names = classLabels(outputName);
  const outputs = Array.from({ length: classes - 1 }, (_, i) => i + 1);
  return {
    session,
    inputName,
    outputName,
    frames,
    labels: outputs.map((i) => names[String(i)] ?? `${model.name}_${i}`),
    outputs,
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
  ort: typeof Ort,
  classifier: WakeClassifier,
  embeddings: Float32Array,
  into: Float32Array,
  offset: number,
): Promise<void> {
  const result = await classifier.session.run({
    [classifier.inputName]: new ort.Tensor('float32', embeddings, [1, classifier.frames, EMBEDDING_SIZE]),
  });
  const data = result[classifier.outputName]?.data as Float32Array;
  classifier.outputs.forEach((output, i) => (into[offset + i] = data[output] ?? 0));
}
