import { setFlagsFromString } from 'node:v8';

/**
 * Has V8 compile each function to machine code (Sparkplug, its quick non-optimizing compiler)
 * when first called, instead of interpreting it until it has run often. The code between a
 * transcript and the reply request, or a sentence and its speech request, runs once a turn:
 * never often enough to leave the interpreter, and slowest exactly where the user waits.
 * Called before anything else is loaded (the `hark` command; the benchmarks that measure it).
 */
export function compileEarly(): void {
  setFlagsFromString('--always-sparkplug');
}
