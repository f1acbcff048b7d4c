import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../system/package-paths.js';

/**
 * speexdsp's echo canceller (MDF), residual echo suppressor and noise suppressor, built to
 * WebAssembly by native/speexdsp/build.sh. Each user instantiates it on its own memory.
 */
export const SPEEX_WASM_PATH = join(PACKAGE_ROOT, 'assets', 'wasm', 'speexdsp-aec.wasm');

const modules = new Map<string, Promise<WebAssembly.Module>>();

/** The compiled module at `path`, compiled once per process. */
export function compileSpeex(path: string): Promise<WebAssembly.Module> {
  let module = modules.get(path);
  if (!module) {
    module = readFile(path).then((bytes) => WebAssembly.compile(bytes));
    modules.set(path, module);
    module.catch(() => modules.delete(path));
  }
  return module;
}
