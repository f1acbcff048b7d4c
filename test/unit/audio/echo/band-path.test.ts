import { describe, expect, it } from 'vitest';
import { BandPath } from '../../../../src/audio/echo/band-path.js';
import { BEYOND_BANDS_DB } from '../../../../src/audio/frames.js';
import { BandPowers } from '../../../../src/audio/echo/band-powers.js';
import { meanSquare } from '../../../../src/audio/pcm.js';

const FRAME = 256;
const RATE = 16_000;
const bands = new BandPowers(FRAME);
/** The delay estimator's coherence with hark's voice clearly heard at the delay in use. */
const HEARD = 0.4;

/** A seeded pseudo-random source, so that every run hears the same noise. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

/** Noise between `fromHz` and `toHz` (a sum of sines at random phases), `frames` frames long, at about `dbfs`. */
function bandNoise(fromHz: number, toHz: number, dbfs: number, frames: number, seed: number): Int16Array {
  const next = random(seed);
  const tones = Array.from({ length: 24 }, (_, i) => ({
    hz: fromHz + ((toHz - fromHz) * (i + next())) / 24,
    phase: 2 * Math.PI * next(),
  }));
  const samples = new Float64Array(frames * FRAME);
  for (let n = 0; n < samples.length; n++)
    for (const { hz, phase } of tones)
      samples[n] = (samples[n] as number) + Math.sin((2 * Math.PI * hz * n) / RATE + phase);
  const rms = Math.sqrt(samples.reduce((sum, v) => sum + v * v, 0) / samples.length);
  const scale = (32768 * 10 ** (dbfs / 20)) / rms;
  return Int16Array.from(samples, (v) => Math.round(v * scale));
}

const add = (a: Int16Array, b: Int16Array) => Int16Array.from(a, (v, i) => v + (b[i] as number));
const scaled = (a: Int16Array, db: number) => Int16Array.from(a, (v) => Math.round(v * 10 ** (db / 20)));
const frame = (a: Int16Array, i: number) => a.subarray(i * FRAME, (i + 1) * FRAME);

/**
 * hark plays `voice` (its echo, 8 dB down, on top of the room's noise) for `frames` frames;
 * `over` is said over the last `overFrames` of them. The verdict of each of those frames.
 */
function judge(
  path: BandPath,
  voice: Int16Array,
  frames: number,
  over?: Int16Array,
  overFrames = 0,
  coherence = HEARD,
): (number | null)[] {
  const noise = bandNoise(100, 7900, -66, frames, 9);
  const heard: (number | null)[] = [];
  for (let i = 0; i < frames; i++) {
    const played = frame(voice, i);
    let mic = add(scaled(played, -8), frame(noise, i));
    const talking = over !== undefined && i >= frames - overFrames;
    if (talking) mic = add(mic, frame(over, i - (frames - overFrames)));
    const [micBands, referenceBands] = bands.of(mic, played);
    path.remember(referenceBands);
    const beyondDb = path.beyondDb(micBands, i >= frames - overFrames ? coherence : HEARD);
    path.hear(micBands);
    path.learn(micBands, referenceBands, beyondDb, false, HEARD);
    if (talking || over === undefined) heard.push(beyondDb);
  }
  return heard;
}

describe('BandPath', () => {
  it('knows nothing before it has heard the echo path for half a second', () => {
    const path = new BandPath({ frameMs: 16, leadMs: 30 });
    const voice = bandNoise(200, 1800, -20, 20, 1);
    expect(judge(path, voice, 20).every((verdict) => verdict === null)).toBe(true);
  });

  it("finds nothing beyond hark's echo in the echo alone", () => {
    const path = new BandPath({ frameMs: 16, leadMs: 30 });
    const voice = bandNoise(200, 1800, -20, 200, 1);
    const verdicts = judge(path, voice, 200).slice(40);
    expect(verdicts.every((verdict) => verdict !== null && verdict < BEYOND_BANDS_DB)).toBe(true);
  });

  it('hears a talker as loud as the echo where hark is not speaking, which no level mark can', () => {
    const path = new BandPath({ frameMs: 16, leadMs: 30 });
    const voice = bandNoise(200, 1800, -20, 300, 1);
    // The talker is as loud as the echo (-28 dBFS): together 3 dB louder than the echo alone.
    const talker = bandNoise(2200, 4500, -28, 100, 2);
    const verdicts = judge(path, voice, 300, talker, 100);
    const heard = verdicts.filter((verdict) => verdict !== null && verdict >= BEYOND_BANDS_DB).length;
    expect(heard / verdicts.length).toBeGreaterThan(0.9);
  });

  it("says nothing while hark's voice is not clearly heard at the delay in use (re-aligned to a wrong one)", () => {
    const path = new BandPath({ frameMs: 16, leadMs: 30 });
    const voice = bandNoise(200, 1800, -20, 300, 1);
    const talker = bandNoise(2200, 4500, -28, 100, 2);
    expect(judge(path, voice, 300, talker, 100, 0.02).every((verdict) => verdict === null)).toBe(true);
  });

  it('forgets the path on reset', () => {
    const path = new BandPath({ frameMs: 16, leadMs: 30 });
    judge(path, bandNoise(200, 1800, -20, 100, 1), 100);
    path.reset();
    expect(path.beyondDb(bands.of(bandNoise(200, 1800, -20, 1, 3))[0], HEARD)).toBeNull();
  });
});

describe('BandPowers', () => {
  const tone = Int16Array.from({ length: FRAME }, (_, n) =>
    Math.round(8000 * Math.sin((2 * Math.PI * 1000 * n) / RATE)),
  );

  it("sums over its bands to the frame's mean power, and puts a tone in the band that holds it", () => {
    const [powers] = bands.of(tone);
    const total = powers.reduce((sum, p) => sum + p, 0);
    expect(total / meanSquare(tone)).toBeCloseTo(1, 1);
    const loudest = powers.indexOf(Math.max(...powers));
    // 1 kHz is bin 16 of 256 at 16 kHz: the band from bin 15 to 18.
    expect(loudest).toBe(8);
  });

  it('keeps two frames apart when both are measured in one transform', () => {
    const noise = bandNoise(200, 1800, -20, 1, 3);
    const [toneBands, noiseBands] = bands.of(tone, noise);
    const [toneAlone] = bands.of(tone);
    const [noiseAlone] = bands.of(noise);
    for (let band = 0; band < toneAlone.length; band++) {
      expect(toneBands[band]).toBeCloseTo(toneAlone[band] as number, 3);
      expect(noiseBands[band]).toBeCloseTo(noiseAlone[band] as number, 3);
    }
  });
});
