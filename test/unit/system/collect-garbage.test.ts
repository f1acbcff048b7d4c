import { describe, expect, it, vi } from 'vitest';
import { collectGarbage } from '../../../src/system/collect-garbage.js';

const MIB = 1024 * 1024;

/** One turn of the event loop: what a job made, V8 keeps alive to that job's end. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('collectGarbage', () => {
  it('collects at once what nothing holds any more, and its memory is given back', async () => {
    let buffer: Uint8Array | undefined = new Uint8Array(64 * MIB).fill(1);
    const dropped = new WeakRef(buffer);
    const held = process.memoryUsage().arrayBuffers;
    buffer = undefined;
    await nextTurn();

    collectGarbage();
    expect(dropped.deref() === undefined, 'the dropped buffer outlived the collection').toBe(true);
    // V8 frees a dead buffer's memory on a helper thread after the collection: on a loaded
    // machine that comes some milliseconds later.
    await vi.waitFor(() => expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 60 * MIB), {
      timeout: 5_000,
      interval: 5,
    });
  });
});
