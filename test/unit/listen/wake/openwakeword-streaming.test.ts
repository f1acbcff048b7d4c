/** The live wake-word detector over a stream: frame sizes, its clock, the refractory period, closing. */
import { join } from 'node:path';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { OpenWakeWord } from '../../../../src/listen/wake/openwakeword.js';
import { StagedStream } from '../../../../src/listen/wake/staged-stream.js';
import type { WakeWordDetection } from '../../../../src/pipeline/ports.js';
import { FIXTURES, fixtureSamples } from '../../../helpers/speech.js';
import { at, clip, listen, WAKE_OPTIONS as options, type WakeClip } from '../../../helpers/wake-clips.js';

describe('OpenWakeWord streaming', () => {
  let jarvis: WakeClip;
  let audio: Int16Array;
  beforeAll(async () => {
    jarvis = clip('hey_jarvis');
    audio = await fixtureSamples(join(FIXTURES, jarvis.file));
  });

  it('hears the same whatever the size of the frames pushed', async () => {
    const results: WakeWordDetection[][] = [];
    for (const frame of [512, 1280, 333, audio.length]) {
      const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options });
      results.push(await listen(detector, audio, frame));
      await detector.close();
    }
    for (const result of results) expect(result).toEqual(results[0]);
  });

  it('keeps the stream clock across reset, so that times stay those of the stream', async () => {
    const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options });
    const alone = await listen(detector, audio);
    detector.reset();
    const after = await listen(detector, audio);
    await detector.close();
    const offset = audio.length / 16 + 1000;
    expect(after.map((d) => d.atMs - offset)).toEqual(alone.map((d) => d.atMs));
  });

  it('hears a wake word said again within the refractory period once, and again after it', async () => {
    // The wake word and its command, then the same again 1.5 s after the first detection.
    const said = audio.slice(at(jarvis.wakeStartMs - 300), at(jarvis.commandEndMs + 200));
    const twice = new Int16Array(said.length * 2 + at(800));
    twice.set(said, 0);
    twice.set(said, said.length + at(800));
    const long = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, refractoryMs: 4000 });
    const short = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, refractoryMs: 1000 });
    const once = await listen(long, twice);
    const both = await listen(short, twice);
    await Promise.all([long.close(), short.close()]);
    expect(once).toHaveLength(1);
    expect(both).toHaveLength(2);
    const apart = (both[1]?.endMs ?? 0) - (both[0]?.endMs ?? 0);
    expect(Math.abs(apart - (said.length + at(800)) / 16)).toBeLessThan(100);
  });

  it('after a wake word, looks no closer at what cannot be another one (the refractory period), and hears the same', async () => {
    const said = audio.slice(at(jarvis.wakeStartMs - 300), at(jarvis.commandEndMs + 200));
    const twice = new Int16Array(said.length * 2 + at(800));
    twice.set(said, 0);
    twice.set(said, said.length + at(800));
    /** The detections, and how many windows the embedding embedded. */
    const heard = async (refractoryMs: number) => {
      const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, refractoryMs, maxBatchSteps: 4 });
      const embed = vi.spyOn(StagedStream.prototype, 'embed');
      const found = await listen(detector, twice);
      const windows = embed.mock.calls.reduce((sum, [, starts]) => sum + starts.length, 0);
      embed.mockRestore();
      await detector.close();
      return { found, windows };
    };
    const once = await heard(4000);
    const both = await heard(1000);
    expect(once.found).toHaveLength(1);
    expect(both.found).toHaveLength(2);
    expect(once.found[0]).toEqual(both.found[0]);
    // The second wake word, within the longer refractory period, is scored at its steps alone:
    // none of the 48 windows between steps that looking closer first embeds (here 151 against 208).
    expect(once.windows).toBeLessThan(both.windows - 40);
  });

  it('ignores what is pushed after close, and completes its streams', async () => {
    const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options });
    let completed = false;
    detector.detections.subscribe({ complete: () => (completed = true) });
    await detector.close();
    detector.push(audio);
    await detector.drain();
    expect(completed).toBe(true);
  });
});
