import { join } from 'node:path';
import { PACKAGE_ROOT } from '../system/package-paths.js';

/**
 * speexdsp's echo canceller (MDF), residual echo suppressor and noise suppressor, built to
 * WebAssembly by native/speexdsp/build.sh. Each user instantiates it on its own memory
 * (`compileWasm` compiles it once).
 */
export const SPEEX_WASM_PATH = join(PACKAGE_ROOT, 'assets', 'wasm', 'speexdsp-aec.wasm');
