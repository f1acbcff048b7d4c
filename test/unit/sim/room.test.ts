import { describe, expect, it } from 'vitest';
import { Room, activeLevelDbfs, atLevel } from '../../../src/sim/room.js';
import { speechFixture } from '../../helpers/speech-fixtures.js';

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** hark's "reply": real speech at the room's played level. */
const reply = atLevel(concat([speechFixture('speech-a').samples, speechFixture('speech-d').samples]), -26);

describe('Room', () => {
  it('is deterministic for a seed, and another seed is another room', () => {
    const a = new Room({ seed: 7 }).hear(reply).mic;
    const b = new Room({ seed: 7 }).hear(reply).mic;
    const c = new Room({ seed: 8 }).hear(reply).mic;
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    expect(Buffer.from(a.buffer).equals(Buffer.from(c.buffer))).toBe(false);
  });

  it('gives the same microphone signal whether fed in one block or in frames', () => {
    const played = reply.subarray(0, 16000 * 2);
    const whole = new Room({ seed: 3 }).hear(played).mic;
    const room = new Room({ seed: 3 });
    const parts: Int16Array[] = [];
    for (let at = 0; at < played.length; at += 256) parts.push(room.hear(played.subarray(at, at + 256)).mic);
    const framed = concat(parts);
    let worst = 0;
    for (let i = 0; i < whole.length; i++)
      worst = Math.max(worst, Math.abs((whole[i] as number) - (framed[i] as number)));
    expect(worst).toBeLessThanOrEqual(1);
  });

  for (const echoDb of [-20, -10, 0, 6]) {
    it(`puts the echo ${echoDb} dB from the user's speech level`, () => {
      const heard = new Room({ seed: 1, echoDb, speechLevelDbfs: -26, playedLevelDbfs: -26 }).hear(reply);
      expect(activeLevelDbfs(heard.echo)).toBeCloseTo(-26 + echoDb, 0);
    });
  }

  it('sets the noise at the requested SNR below the speech level', () => {
    const heard = new Room({ seed: 1, snrDb: 30, speechLevelDbfs: -26 }).hear(new Int16Array(16000 * 3));
    const rms = Math.sqrt(heard.noise.reduce((s, v) => s + (v / 32768) ** 2, 0) / heard.noise.length);
    expect(20 * Math.log10(rms)).toBeCloseTo(-56, 0);
  });

  it('delays the direct sound by the requested delay, drifting slowly around it', () => {
    const click = new Int16Array(16000);
    click[1600] = 20000;
    const room = new Room({ seed: 2, delayMs: 150, driftMs: 0, directToReverbDb: 20 });
    const { echo } = room.hear(click);
    let peak = 0;
    for (let i = 0; i < echo.length; i++) if (Math.abs(echo[i] as number) > Math.abs(echo[peak] as number)) peak = i;
    expect((peak - 1600) / 16).toBeCloseTo(150, 0);
    const drifting = new Room({ seed: 2, delayMs: 150, driftMs: 5, driftPeriodMs: 60_000 });
    const delays = Array.from({ length: 60 }, (_, s) => drifting.delayAt(s * 16000));
    expect(Math.max(...delays) - Math.min(...delays)).toBeGreaterThan(8);
    expect(Math.max(...delays)).toBeLessThanOrEqual(155);
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(145);
  });

  it('mixes in the user unchanged', () => {
    const user = atLevel(speechFixture('speech-b').samples, -26);
    const heard = new Room({ seed: 1, snrDb: 90 }).hear(new Int16Array(user.length), user);
    let worst = 0;
    for (let i = 0; i < user.length; i++)
      worst = Math.max(worst, Math.abs((heard.mic[i] as number) - (user[i] as number)));
    expect(worst).toBeLessThanOrEqual(1);
  });
});
