import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { LoadingWakeWord } from '../../../../src/app/adapters/loading-wake-word.js';
import { LIVE_DETECTOR } from '../../../../src/listen/wake/wake-settings.js';
import { OpenWakeWord } from '../../../../src/listen/wake/openwakeword.js';
import type { WakeWordDetection, WakeWordDetector, WakeWordScores } from '../../../../src/pipeline/ports.js';
import { FIXTURES, fixtureSamples } from '../../../helpers/speech.js';

interface WakeClip {
  file: string;
  model: string;
  wakeEndMs: number;
  commandStartMs: number;
}
const jarvis = (JSON.parse(readFileSync(join(FIXTURES, 'wake-clips.json'), 'utf8')) as WakeClip[]).find(
  (c) => c.model === 'hey_jarvis',
) as WakeClip;
const options = { threshold: 0.5, refractoryMs: 2000, endWaitMs: 160 };

/** A load that finishes when the test says. */
function held<T>(loading: () => Promise<T>): { promise: Promise<T>; release: () => void } {
  let release: () => void = () => undefined;
  const promise = new Promise<void>((resolve) => (release = resolve)).then(loading);
  return { promise, release };
}

/** A detector that writes down what reaches it, in order. */
class Recording implements WakeWordDetector {
  readonly models = ['hey_jarvis'];
  readonly detections = new Subject<WakeWordDetection>();
  readonly scores = new Subject<WakeWordScores>();
  readonly seen: string[] = [];
  push(frame: Int16Array): void {
    this.seen.push(`frame ${frame[0] ?? ''}`);
  }
  drain(): void {
    return undefined;
  }
  reset(): void {
    this.seen.push('reset');
  }
  async close(): Promise<void> {
    this.seen.push('close');
  }
}

describe('LoadingWakeWord: the wake word while its models load', () => {
  it('a wake word said before the models have loaded is heard once they have, where it was said, however long they took', async () => {
    const audio = await fixtureSamples(join(FIXTURES, jarvis.file));
    // As the daemon listens: a live detector, handed seconds of audio at once, does less per step until it has caught up.
    expect(audio.length + 16000).toBeGreaterThan(2 * 16000);
    const load = held(() => OpenWakeWord.load({ models: ['hey_jarvis'], ...options, ...LIVE_DETECTOR }));
    const detector = new LoadingWakeWord(load.promise);
    const found: WakeWordDetection[] = [];
    detector.detections.subscribe((d) => found.push(d));
    for (let i = 0; i < audio.length; i += 512) detector.push(audio.subarray(i, Math.min(audio.length, i + 512)));
    detector.push(new Int16Array(16000));
    expect(found).toEqual([]);
    load.release();
    await detector.drain();
    await detector.close();
    expect(found).toHaveLength(1);
    // By the clip's labels: the command is cut after the wake word, as when the models were there from the start.
    expect(found[0]?.endMs).toBeLessThanOrEqual(jarvis.commandStartMs);
    expect(found[0]?.endMs).toBeGreaterThanOrEqual(jarvis.wakeEndMs - 100);
  });

  it('keeps resets asked for meanwhile in their place among the frames, and copies frames the caller may reuse', async () => {
    const recording = new Recording();
    const load = held(async () => recording);
    const detector = new LoadingWakeWord(load.promise);
    const frame = new Int16Array(512);
    for (const value of [1, 2, 3]) {
      frame[0] = value;
      detector.push(frame);
      if (value === 2) detector.reset();
    }
    load.release();
    await detector.loaded;
    frame[0] = 4;
    detector.push(frame);
    await detector.close();
    expect(recording.seen).toEqual(['frame 1', 'frame 2', 'reset', 'frame 3', 'frame 4', 'close']);
  });

  it('hands everything held over at once, in order, so that a live detector sees how far behind it starts', async () => {
    const recording = new Recording();
    recording.drain = () => void recording.seen.push('drain');
    const load = held(async () => recording);
    const detector = new LoadingWakeWord(load.promise);
    const heard = Array.from({ length: 47 }, (_, i) => new Int16Array(512).fill(i + 1));
    for (const frame of heard) detector.push(frame);
    load.release();
    await detector.loaded;
    detector.push(new Int16Array(512).fill(99));
    await detector.close();
    expect(recording.seen).toEqual([...heard.map((f) => `frame ${f[0] ?? ''}`), 'frame 99', 'close']);
  });

  it('models that fail to load hear nothing: nothing kept, nothing waited for, and why is known', async () => {
    const detector = new LoadingWakeWord(
      Promise.reject(new Error('libonnxruntime.so: cannot open shared object file')),
    );
    detector.push(new Int16Array(512));
    await detector.loaded;
    expect(detector.failedToLoad).toBe(true);
    expect(detector.loadError?.message).toMatch(/libonnxruntime/);
    detector.push(new Int16Array(512));
    await expect(detector.drain()).resolves.toBeUndefined();
    await detector.close();
  });
});
