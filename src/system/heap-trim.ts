import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PACKAGE_ROOT } from './package-paths.js';

/** hark's Node-API addon (native/trim), built for the architectures the tarball carries. */
export const HEAP_TRIM_ADDON = join(
  PACKAGE_ROOT,
  'assets',
  'native',
  `${process.platform}-${process.arch}`,
  'hark-trim.node',
);

type HeapTrim = { available: true; trim: () => Promise<boolean> } | { available: false; reason: string };

let loaded: HeapTrim | undefined;

/**
 * Whether this process can hand the C heap's free pages back to the system (glibc's
 * malloc_trim), and why not where it cannot: no build for this architecture, or a C library
 * without malloc_trim (musl). Loaded once per thread.
 */
export function heapTrim(): HeapTrim {
  if (loaded) return loaded;
  try {
    const addon = createRequire(import.meta.url)(HEAP_TRIM_ADDON) as { trim?: unknown };
    if (typeof addon.trim !== 'function') throw new Error(`${HEAP_TRIM_ADDON} has no trim()`);
    loaded = { available: true, trim: addon.trim as () => Promise<boolean> };
  } catch (error) {
    loaded = { available: false, reason: (error as Error).message.split('\n')[0] ?? 'did not load' };
  }
  return loaded;
}

/**
 * Hands what this process freed in the middle of its C heaps (every thread's) back to the
 * system: glibc returns only the top of the main heap on its own. About the buffers of a turn
 * that V8 and onnxruntime have freed: on a small board, megabytes that would stay resident. The
 * trim runs on one of libuv's threads; the calling thread goes on. Never rejects: a trim that
 * cannot be made leaves memory as it was.
 */
export async function trimHeap(): Promise<void> {
  const trimmer = heapTrim();
  if (!trimmer.available) return;
  try {
    await trimmer.trim();
  } catch {
    // Out of memory for the request, or libuv would not queue it: memory stays as it was.
  }
}
