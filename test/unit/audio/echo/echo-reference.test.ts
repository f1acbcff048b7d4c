import { describe, expect, it } from 'vitest';
import { EchoReference } from '../../../../src/audio/echo/echo-reference.js';
import { FakePlayer } from '../../../helpers/fakes.js';

/** A 300 Hz tone at `rateHz`, `ms` long, starting at phase `fromMs`. */
function tone(ms: number, rateHz: number, fromMs = 0): Int16Array {
  return Int16Array.from({ length: Math.round((ms / 1000) * rateHz) }, (_, i) =>
    Math.round(10000 * Math.sin(2 * Math.PI * 300 * (fromMs / 1000 + i / rateHz))),
  );
}

function expectTone(actual: Int16Array, fromMs: number, tolerance = 60): void {
  const expected = tone((actual.length / 16000) * 1000, 16000, fromMs);
  let worst = 0;
  for (let i = 0; i < actual.length; i++)
    worst = Math.max(worst, Math.abs((actual[i] as number) - (expected[i] as number)));
  expect(worst).toBeLessThan(tolerance);
}

const silent = (samples: Int16Array) => samples.every((v) => v === 0);

describe('EchoReference and the player tap', () => {
  it('hands out what the player plays at the instant its clock says, resampled to 16 kHz', () => {
    let now = 1000;
    const reference = new EchoReference({ sampleRateHz: 16000, historyMs: 2000 });
    const player = new FakePlayer(24000, () => now);
    player.listen(reference);
    // Two chunks back to back at t = 1000 ms: 400 ms of tone in all.
    player.write(Buffer.from(tone(200, 24000).buffer));
    now = 1050;
    player.write(Buffer.from(tone(200, 24000, 200).buffer));
    expect(silent(reference.read(900, 1500))).toBe(true);
    expectTone(reference.read(1010, 3200), 10);
    // Across the boundary between the chunks: no glitch.
    expectTone(reference.read(1150, 1600), 150);
    expect(silent(reference.read(1401, 800))).toBe(true);
  });

  it('after an underrun, the next chunk sounds when it is written', () => {
    let now = 0;
    const reference = new EchoReference({ sampleRateHz: 16000, historyMs: 5000 });
    const player = new FakePlayer(16000, () => now);
    player.listen(reference);
    player.write(Buffer.from(tone(100, 16000).buffer));
    now = 500;
    player.write(Buffer.from(tone(100, 16000).buffer));
    expectTone(reference.read(0, 1600), 0, 2);
    expect(silent(reference.read(110, 16 * 380))).toBe(true);
    expectTone(reference.read(500, 1600), 0, 2);
  });

  it('tells a stream the player started after running dry, or after a pause, from the one it continues', () => {
    let now = 0;
    const reference = new EchoReference({ sampleRateHz: 16000, historyMs: 5000 });
    const player = new FakePlayer(16000, () => now);
    player.listen(reference);
    expect(reference.streamAt(0)).toBe(0);
    player.write(Buffer.from(tone(100, 16000).buffer));
    now = 50;
    // Written while the first still plays: the same stream, sample for sample.
    player.write(Buffer.from(tone(100, 16000).buffer));
    const first = reference.streamAt(150);
    expect(first).toBeGreaterThan(0);
    // Ran dry at 200 ms; the next sentence at 260 ms is another stream, and so is what a resume plays.
    now = 260;
    player.write(Buffer.from(tone(300, 16000).buffer));
    expect(reference.streamAt(230)).toBe(first);
    const second = reference.streamAt(300);
    expect(second).not.toBe(first);
    now = 400;
    player.pause();
    now = 600;
    player.resume();
    expect(reference.streamAt(450)).toBe(second);
    expect(reference.streamAt(650)).not.toBe(second);
  });

  it('a stop drops from the reference what the player dropped', () => {
    let now = 0;
    const reference = new EchoReference({ sampleRateHz: 16000, historyMs: 5000 });
    const fake = new FakePlayer(16000, () => now);
    fake.listen(reference);
    const player = fake;
    player.write(Buffer.from(tone(1000, 16000).buffer));
    now = 300;
    player.stop();
    expect(fake.stops).toBe(1);
    expect(player.queuedMs()).toBe(0);
    expectTone(reference.read(0, 16 * 290), 0, 2);
    expect(silent(reference.read(301, 16 * 800))).toBe(true);
    // Played again after the stop: placed from now on.
    now = 400;
    player.write(Buffer.from(tone(100, 16000).buffer));
    expectTone(reference.read(400, 1600), 0, 2);
  });

  it('a pause silences the reference at once; a resume places the rest from then on', () => {
    let now = 0;
    const reference = new EchoReference({ sampleRateHz: 16000, historyMs: 5000 });
    const player = new FakePlayer(16000, () => now);
    player.listen(reference);
    player.write(Buffer.from(tone(1000, 16000).buffer));
    now = 300;
    player.pause();
    expect(silent(reference.read(301, 16 * 600))).toBe(true);
    now = 900;
    player.resume();
    // The tone goes on from where it was held (300 ms in), from 900 on.
    expectTone(reference.read(900, 16 * 600), 300, 2);
  });

  it('forgets what is older than its history, and keeps the rest', () => {
    const reference = new EchoReference({ sampleRateHz: 16000, historyMs: 1000 });
    for (let i = 0; i < 100; i++) reference.write(tone(100, 16000, i * 100), 16000, i * 100);
    expectTone(reference.read(9000, 1600), 9000, 2);
    expect(silent(reference.read(7000, 1600))).toBe(true);
    expectTone(reference.read(8500, 1600), 8500, 2);
  });
});
