import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EchoCancellerUnavailableError, SpeexCanceller } from '../../../../src/audio/echo/speex-canceller.js';
import { Room, atLevel } from '../../../room/room.js';
import { speechFixture } from '../../../helpers/speech-fixtures.js';

const FRAME = 256;
const options = { sampleRateHz: 16000, frameSamples: FRAME, tailSamples: 3200, suppressDb: 0, suppressActiveDb: 0 };

/** Power of `a` over power of `b` from `fromSample` on, dB. */
function gainDb(a: Int16Array, b: Int16Array, fromSample: number): number {
  let pa = 0;
  let pb = 0;
  for (let i = fromSample; i < a.length; i++) {
    pa += (a[i] as number) ** 2;
    pb += (b[i] as number) ** 2;
  }
  return 10 * Math.log10(pa / pb);
}

/** Hark's reply and its echo, already lined up (the delay is the canceller's caller's business): 30 ms in the filter. */
function echoOfReply(): { reply: Int16Array; mic: Int16Array } {
  const reply = atLevel(
    Int16Array.from([
      ...speechFixture('speech-a').samples,
      ...speechFixture('speech-e').samples,
      ...speechFixture('speech-d').samples,
    ]),
    -26,
  );
  const { mic } = new Room({ seed: 5, delayMs: 30, driftMs: 0, rt60Ms: 300, snrDb: 45 }).hear(reply);
  return { reply, mic };
}

function cancelAll(canceller: SpeexCanceller, mic: Int16Array, reference: Int16Array): Int16Array {
  const out = new Int16Array(mic.length);
  for (let at = 0; at + FRAME <= mic.length; at += FRAME) {
    out.set(canceller.cancel(mic.subarray(at, at + FRAME), reference.subarray(at, at + FRAME)), at);
  }
  return out;
}

describe('SpeexCanceller (speexdsp in WebAssembly)', () => {
  it('takes a room echo of real speech down by more than 15 dB once adapted, and says so', async () => {
    const { reply, mic } = echoOfReply();
    const canceller = await SpeexCanceller.load(options);
    const out = cancelAll(canceller, mic, reply);
    // After 4 s of convergence.
    expect(gainDb(mic, out, 16000 * 4)).toBeGreaterThan(15);
    const state = canceller.state();
    expect(state.adapted).toBe(true);
    expect(state.erleDb).toBeGreaterThan(10);
    expect(state.filterPeakMs).toBeCloseTo(30, -1);
    canceller.close();
  });

  it('with residual echo suppression takes it down further', async () => {
    const { reply, mic } = echoOfReply();
    const plain = cancelAll(await SpeexCanceller.load(options), mic, reply);
    const suppressed = cancelAll(
      await SpeexCanceller.load({ ...options, suppressDb: -40, suppressActiveDb: -15 }),
      mic,
      reply,
    );
    expect(gainDb(plain, suppressed, 16000 * 4)).toBeGreaterThan(10);
  });

  it('forgets the echo path on reset', async () => {
    const { reply, mic } = echoOfReply();
    const canceller = await SpeexCanceller.load(options);
    cancelAll(canceller, mic, reply);
    canceller.reset();
    expect(canceller.state()).toMatchObject({ frames: 0, adapted: false, erleDb: null });
    const first = canceller.cancel(mic.subarray(16000, 16000 + FRAME), reply.subarray(16000, 16000 + FRAME));
    expect(gainDb(mic.subarray(16000, 16000 + FRAME), first, 0)).toBeLessThan(3);
  });

  it('instances do not share state', async () => {
    const { reply, mic } = echoOfReply();
    const a = await SpeexCanceller.load(options);
    const b = await SpeexCanceller.load(options);
    cancelAll(a, mic, reply);
    expect(b.state().frames).toBe(0);
    const fresh = await SpeexCanceller.load(options);
    const frame = mic.subarray(32000, 32000 + FRAME);
    const ref = reply.subarray(32000, 32000 + FRAME);
    expect(Array.from(b.cancel(frame, ref))).toEqual(Array.from(fresh.cancel(frame, ref)));
  });

  it('refuses frames of the wrong size, and use after close', async () => {
    const canceller = await SpeexCanceller.load(options);
    expect(() => canceller.cancel(new Int16Array(100), new Int16Array(100))).toThrow(RangeError);
    canceller.close();
    expect(() => canceller.cancel(new Int16Array(FRAME), new Int16Array(FRAME))).toThrow(/closed/);
  });

  it('a missing or broken module is an error the caller can catch, not a crash', async () => {
    await expect(SpeexCanceller.load(options, join(tmpdir(), 'no-such-speexdsp.wasm'))).rejects.toThrow(
      EchoCancellerUnavailableError,
    );
    const broken = join(tmpdir(), `hark-broken-${process.pid}.wasm`);
    writeFileSync(broken, Buffer.from('not wasm at all'));
    await expect(SpeexCanceller.load(options, broken)).rejects.toThrow(/echo canceller unavailable/);
  });
});
