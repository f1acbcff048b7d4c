import { readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { collectGarbage } from '../../../src/system/collect-garbage.js';
import { heapTrim, trimHeap } from '../../../src/system/heap-trim.js';

const KIB = 1024;
const MIB = 1024 * KIB;

const residentMiB = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1]) / KIB;

describe('trimHeap', () => {
  it("loads hark's addon for this machine (glibc on x86-64 or arm64)", () => {
    expect(heapTrim()).toMatchObject({ available: true });
  });

  it('gives back to the system what was freed between buffers still in use', async () => {
    // Buffers of 64 KiB come from the C heap (below glibc's mmap threshold); every other one kept,
    // so what is freed lies between them, where glibc's free() alone keeps it resident.
    const buffers = Array.from({ length: 1000 }, () => Buffer.allocUnsafeSlow(64 * KIB).fill(1));
    const kept = buffers.filter((_, i) => i % 2 === 0);
    const held = process.memoryUsage().arrayBuffers;
    buffers.length = 0;
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    // V8 frees a dead buffer's memory on a helper thread, some milliseconds after it collects.
    await vi.waitFor(() => expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 30 * MIB), {
      timeout: 5_000,
      interval: 5,
    });
    const before = residentMiB();
    await trimHeap();
    expect(before - residentMiB(), 'MiB given back').toBeGreaterThan(20);
    expect(kept).toHaveLength(500);
  });
});
