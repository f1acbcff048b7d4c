import { getHeapStatistics } from 'node:v8';

/** What compileSettled watches: V8's memory outside its heap, and time (tests pass virtual ones). */
export interface CompileWatch {
  /** Bytes V8 has from malloc now, process-wide: its compilers' working memory among them. */
  malloced(): number;
  now(): number;
  sleep(ms: number): Promise<void>;
}

const MIB = 1024 * 1024;

export const COMPILE_SETTLE = {
  /** Never waited for longer than this from the call. */
  limitMs: 2000,
  /** A compile that has not begun this long after the work is done is not waited for. */
  beginsWithinMs: 300,
  pollMs: 10,
  /** A compile is under way once the figure is this far above the lowest seen, */
  risenBy: 8 * MIB,
  /** and over once it is back within this of it. */
  backWithin: 2 * MIB,
};

const realWatch: CompileWatch = {
  malloced: () => getHeapStatistics().malloced_memory,
  now: () => performance.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Settles once `work` is done and the compile it set off has handed its memory back: V8
 * optimises a hot WebAssembly function on another thread, and for undici's HTTP parser (one huge
 * function, after its first response) that holds about 25 MB for a moment. Waiting for it before
 * loading more keeps the two from adding up. V8 tells nothing of its compiles but this figure; a
 * compile that does not begin soon after `work` is not waited for, and nothing past `limitMs`.
 */
export async function compileSettled(
  work: Promise<unknown>,
  watch: CompileWatch = realWatch,
  settle = COMPILE_SETTLE,
): Promise<void> {
  const start = watch.now();
  let done: number | undefined;
  work.then(
    () => (done = watch.now()),
    () => (done = watch.now()),
  );
  let lowest = watch.malloced();
  let rose = false;
  while (watch.now() - start < settle.limitMs) {
    const now = watch.malloced();
    lowest = Math.min(lowest, now);
    if (now > lowest + settle.risenBy) rose = true;
    else if (rose && now <= lowest + settle.backWithin) {
      if (done !== undefined) return;
      // A compile over before the work is done was not the one it sets off.
      rose = false;
    }
    if (!rose && done !== undefined && watch.now() - done >= settle.beginsWithinMs) return;
    await watch.sleep(settle.pollMs);
  }
}
