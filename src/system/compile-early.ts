import { setFlagsFromString } from 'node:v8';

/**
 * Has V8 compile each function to machine code (Sparkplug, its quick non-optimizing compiler)
 * when first called, instead of interpreting it until it has run often. The code between a
 * transcript and the reply request, or a sentence and its speech request, runs once a turn:
 * never often enough to leave the interpreter, and slowest exactly where the user waits.
 *
 * And has its optimising compiler not unroll WebAssembly's loops. undici's HTTP parser is one
 * huge WebAssembly function, compiled again after the first response: on Node 20 that held 36 MB
 * for a moment as hark started, on top of the models loading, and 25 MB without the unrolling.
 * hark's kernels run as fast either way (clang builds them with their loops as they are).
 *
 * Called before anything else is loaded (the `hark` command; the benchmarks that measure it).
 */
export function compileEarly(): void {
  setFlagsFromString('--always-sparkplug');
  setFlagsFromString('--no-wasm-loop-unrolling');
}
