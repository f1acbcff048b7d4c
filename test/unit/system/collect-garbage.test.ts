import { describe, expect, it } from 'vitest';
import { collectGarbage } from '../../../src/system/collect-garbage.js';

const MIB = 1024 * 1024;

/** A buffer of `mib` that only `into` holds: no frame of the test's keeps a reference. */
function fill(into: Uint8Array[], mib: number): void {
  into.push(new Uint8Array(mib * MIB).fill(1));
}

describe('collectGarbage', () => {
  it('frees at once what nothing holds any more', () => {
    const holder: Uint8Array[] = [];
    fill(holder, 64);
    const held = process.memoryUsage().arrayBuffers;
    holder.length = 0;
    collectGarbage();
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 60 * MIB);
  });
});
