import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SileroNetwork } from '../../../src/listen/silero-network.js';
import { SileroVad } from '../../../src/listen/silero-vad.js';
import { VAD_FRAME_SAMPLES } from '../../../src/listen/vad.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EARCON_DIR } from '../../../src/audio/earcons.js';
import { resample, samplesOf, scale } from '../../../src/audio/pcm.js';
import { readWavInfo } from '../../../src/audio/wav-header.js';
import { roomNoise } from '../../helpers/audio.js';
import { UTTERANCE, fixtureSamples } from '../../helpers/speech.js';

const GATE = { capDbfs: -55, marginDb: 3 };
let vad: SileroVad;
let speech: Int16Array;
beforeAll(async () => {
  vad = await SileroVad.load(GATE);
  speech = (await fixtureSamples(UTTERANCE)).subarray(0, 16000 * 4);
});
afterAll(() => vad.close());

async function scores(samples: Int16Array): Promise<number[]> {
  const out: number[] = [];
  for (let at = 0; at + VAD_FRAME_SAMPLES <= samples.length; at += VAD_FRAME_SAMPLES) {
    out.push(await vad.probability(samples.subarray(at, at + VAD_FRAME_SAMPLES)));
  }
  return out;
}

/** The thinking earcon, as the microphone would hear it at 16 kHz. */
function earcon(): Int16Array {
  const wav = readFileSync(join(EARCON_DIR, 'thinking.wav'));
  const info = readWavInfo(wav);
  return resample(samplesOf(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes)), info.sampleRateHz, 16000);
}

/** A breath: 0.2 s of soft noise (deterministic). */
function breath(): Int16Array {
  let seed = 7;
  return new Int16Array(3200).map(() => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return Math.round((seed / 2 ** 31 - 0.5) * 3000);
  });
}

describe('SileroVad', () => {
  it('frames asked for all at once are scored in order, as one at a time would be', async () => {
    vad.reset();
    const oneByOne = await scores(speech);
    vad.reset();
    const frames = Array.from({ length: oneByOne.length }, (_, i) =>
      speech.subarray(i * VAD_FRAME_SAMPLES, (i + 1) * VAD_FRAME_SAMPLES),
    );
    const atOnce = await Promise.all(frames.map((frame) => vad.probability(frame)));
    vad.reset();
    expect(atOnce).toEqual(oneByOne);
    expect(Math.max(...atOnce)).toBeGreaterThan(0.5);
  });

  it('an earcon or a breath after a silent stretch that followed speech is not speech (the model state never freezes mid-speech)', async () => {
    // Speech cut off mid-word, then silence, then hark's thinking earcon; silence again, then a breath.
    // With the state frozen mid-speech, these scored 0.96 and 0.99.
    vad.reset();
    await scores(speech.subarray(0, 24000));
    await scores(new Int16Array(16000));
    expect(Math.max(...(await scores(earcon())))).toBeLessThan(0.5);
    await scores(new Int16Array(16000));
    expect(Math.max(...(await scores(breath())))).toBeLessThan(0.5);
  });

  it("runs the model on few frames of a quiet room (it learns the room's loudest frames), and still hears a quiet talker in it", async () => {
    const run = vi.spyOn(SileroNetwork.prototype, 'probability');
    const room = roomNoise(20_000, -72);
    vad.reset();
    await scores(room.subarray(0, 16000 * 2));
    run.mockClear();
    await scores(room.subarray(16000 * 2));
    // With the floor's margin alone (3 dB), the model heard 1 frame in 4 of this room.
    expect(run.mock.calls.length).toBeLessThan(0.03 * ((18 * 16000) / VAD_FRAME_SAMPLES));
    run.mockRestore();
    const level = Math.sqrt(speech.reduce((sum, v) => sum + v * v, 0) / speech.length) / 32768;
    const talker = scale(speech, 10 ** (-52 / 20) / level).map((v, i) => v + (room[i] ?? 0));
    const afterRoom = (await scores(talker)).filter((p) => p >= 0.5).length;
    vad.reset();
    const fresh = (await scores(talker)).filter((p) => p >= 0.5).length;
    expect(afterRoom).toBeGreaterThanOrEqual(0.95 * fresh);
  });

  it('hears a quiet talker (speech at -52 dBFS over a quiet room) as speech', async () => {
    vad.reset();
    const level = Math.sqrt(speech.reduce((sum, v) => sum + v * v, 0) / speech.length) / 32768;
    const quiet = scale(speech, 10 ** (-52 / 20) / level);
    const noisy = quiet.map((v, i) => v + Math.round(8 * Math.sin(i * 1.7) + 6 * Math.sin(i * 0.37)));
    const voiced = (await scores(noisy)).filter((p) => p >= 0.5).length;
    vad.reset();
    const loud = (await scores(speech)).filter((p) => p >= 0.5).length;
    expect(voiced / loud).toBeGreaterThan(0.9);
  });
});
