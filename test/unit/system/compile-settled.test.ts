import { describe, expect, it } from 'vitest';
import { COMPILE_SETTLE, compileSettled, type CompileWatch } from '../../../src/system/compile-settled.js';

const MIB = 1024 * 1024;

/** Virtual time: each sleep moves it on, settling what was due, then lets their callbacks run. */
interface VirtualWatch extends CompileWatch {
  at: number;
  /** Done (the first response parsed) once the clock reaches `at`. */
  doneAt(at: number): Promise<void>;
}

function watch(malloced: (at: number) => number): VirtualWatch {
  const due: { at: number; resolve(): void }[] = [];
  const clock: VirtualWatch = {
    at: 0,
    malloced: () => malloced(clock.at),
    now: () => clock.at,
    sleep: (ms) => {
      clock.at += ms;
      for (const work of due.filter((w) => w.at <= clock.at)) {
        due.splice(due.indexOf(work), 1);
        work.resolve();
      }
      return new Promise((resolve) => setImmediate(resolve));
    },
    doneAt: (at) => new Promise((resolve) => due.push({ at, resolve })),
  };
  return clock;
}

describe('compileSettled', () => {
  it('waits for the compile the work set off until its memory is handed back', async () => {
    const clock = watch((at) => (at >= 60 && at < 200 ? 26 * MIB : 1 * MIB));
    await compileSettled(clock.doneAt(50), clock);
    expect(clock.at).toBeGreaterThanOrEqual(200);
    expect(clock.at).toBeLessThan(200 + 2 * COMPILE_SETTLE.pollMs);
  });

  it('does not wait when no compile begins soon after the work', async () => {
    const clock = watch(() => 1 * MIB);
    await compileSettled(clock.doneAt(50), clock);
    expect(clock.at).toBeGreaterThanOrEqual(50 + COMPILE_SETTLE.beginsWithinMs);
    expect(clock.at).toBeLessThan(50 + COMPILE_SETTLE.beginsWithinMs + 2 * COMPILE_SETTLE.pollMs);
  });

  it('waits for the compile after the work, not for one over before it', async () => {
    const clock = watch((at) => ((at >= 10 && at < 30) || (at >= 120 && at < 400) ? 26 * MIB : 1 * MIB));
    await compileSettled(clock.doneAt(100), clock);
    expect(clock.at).toBeGreaterThanOrEqual(400);
  });

  it('never waits past its limit, and a failed work is waited for no less', async () => {
    const clock = watch((at) => (at >= 60 ? 26 * MIB : 1 * MIB));
    await compileSettled(
      clock.doneAt(50).then(() => Promise.reject(new Error('the service did not answer'))),
      clock,
    );
    expect(clock.at).toBeGreaterThanOrEqual(COMPILE_SETTLE.limitMs);
    expect(clock.at).toBeLessThan(COMPILE_SETTLE.limitMs + 2 * COMPILE_SETTLE.pollMs);
  });
});
