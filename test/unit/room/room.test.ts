import { describe, expect, it } from 'vitest';
import { Room, activeLevelDbfs, atLevel } from '../../room/room.js';
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

  it('on an underrun, falls silent for the gap and plays on that much later; at the next, skips back to the old delay', () => {
    // A click every 250 ms; each underrun comes 0.5 to 1.5 s after the last.
    const clickTimes = Array.from({ length: 15 }, (_, k) => 50 + 250 * k);
    const clicks = new Int16Array(16000 * 4);
    for (const t of clickTimes) clicks[t * 16] = 20000;
    const room = new Room({
      seed: 4,
      delayMs: 100,
      driftMs: 0,
      directToReverbDb: 40,
      underruns: { everyMs: 1000, gapMs: 48 },
    });
    const { echo } = room.hear(clicks);
    const [first, second, third = 4000] = room.underrunsAt as [number, number, number?];
    expect(first).toBeGreaterThanOrEqual(500);
    expect(second - first).toBeGreaterThanOrEqual(500);
    /** How long after it was played the click was heard, ms, or null if it never was. */
    const heardAfter = (playedMs: number): number | null => {
      let peak = (playedMs + 20) * 16;
      for (let i = peak; i < (playedMs + 200) * 16; i++)
        if (Math.abs(echo[i] as number) > Math.abs(echo[peak] as number)) peak = i;
      return Math.abs(echo[peak] as number) > 5000 ? peak / 16 - playedMs : null;
    };
    const heard = (times: number[]) => times.map(heardAfter);
    const before = clickTimes.filter((t) => t + 100 < first);
    const behind = clickTimes.filter((t) => t + 100 > first + 48 && t + 148 < second);
    const after = clickTimes.filter((t) => t + 100 > second && t + 100 < third);
    expect(behind.length).toBeGreaterThan(0);
    expect(after.length).toBeGreaterThan(0);
    expect(heard(before)).toEqual(before.map(() => 100));
    expect(heard(behind)).toEqual(behind.map(() => 148));
    expect(heard(after)).toEqual(after.map(() => 100));
    // Nothing but the room's reverberation sounds in the gap itself.
    const gap = echo.subarray(Math.round(first * 16), Math.round((first + 48) * 16));
    expect(Math.max(...Array.from(gap, Math.abs))).toBeLessThan(100);
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
