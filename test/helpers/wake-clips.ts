/** The committed wake-word clips and how the detector tests listen to them. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WakeWordDetection, WakeWordDetector } from '../../src/pipeline/ports.js';
import { FIXTURES } from './speech.js';

/** The committed clips: real speech, then a wake word and a command said in one breath (see test/fixtures/README.md). */
export interface WakeClip {
  file: string;
  model: string;
  wakeStartMs: number;
  wakeEndMs: number;
  commandStartMs: number;
  commandEndMs: number;
}
export const CLIPS = JSON.parse(readFileSync(join(FIXTURES, 'wake-clips.json'), 'utf8')) as WakeClip[];
export const clip = (model: string): WakeClip => CLIPS.find((c) => c.model === model) as WakeClip;
export const RATE = 16000;
export const at = (ms: number): number => Math.round((ms / 1000) * RATE);
/** The decider's settings the tests use (hark's defaults). */
export const WAKE_OPTIONS = { threshold: 0.5, refractoryMs: 2000, endWaitMs: 160 };

/** Pushes `samples` in `frame`-sample frames (hark's VAD frames by default), then a second of quiet, and waits. */
export async function listen(
  detector: WakeWordDetector,
  samples: Int16Array,
  frame = 512,
): Promise<WakeWordDetection[]> {
  const found: WakeWordDetection[] = [];
  const subscription = detector.detections.subscribe((d) => found.push(d));
  for (let i = 0; i < samples.length; i += frame)
    detector.push(samples.subarray(i, Math.min(samples.length, i + frame)));
  detector.push(new Int16Array(RATE));
  await detector.drain();
  subscription.unsubscribe();
  return found;
}
