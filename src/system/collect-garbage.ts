import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

/**
 * A full garbage collection of this thread's heap, now (about 15 ms on the main thread of a
 * desktop core, 7 ms on the listening thread). V8 collects its old generation only when that
 * has grown, and gives memory back on its own only once allocation slows; hark's frames never
 * let it slow. Meanwhile what a turn left (its buffers' memory above all, freed only by a full
 * collection) stays resident: several MB of a small board's memory.
 *
 * V8's `gc` is exposed by a flag that holds for contexts made after it is set, so the function
 * comes from a new context; it collects the heap of the thread that calls it.
 */
export function collectGarbage(): void {
  collect ??= exposedGc();
  collect();
}

function exposedGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  try {
    setFlagsFromString('--expose-gc');
    return runInNewContext('gc') as () => void;
  } catch {
    // A Node that will not expose it: V8 collects when it will, as it always did.
    return () => undefined;
  }
}
