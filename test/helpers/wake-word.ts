import { Subject } from 'rxjs';
import type { WakeWordDetection, WakeWordDetector, WakeWordScores } from '../../src/pipeline/ports.js';

const RATE = 16000;
const STEP_MS = 80;

export type ScriptedDetection = Pick<WakeWordDetection, 'atMs'> & Partial<WakeWordDetection>;

/**
 * A wake-word detector that hears what the test scripts: each detection is emitted (at once,
 * inside `push`) as soon as the audio pushed reaches its `atMs`; scores are emitted every 80 ms,
 * 0.9 at the step of a detection and 0 elsewhere. Like the real one, `reset` keeps the stream clock.
 */
export class ScriptedWakeWord implements WakeWordDetector {
  readonly detections = new Subject<WakeWordDetection>();
  readonly scores = new Subject<WakeWordScores>();
  /** Set for a detector whose models did not load. */
  failedToLoad = false;
  /** Frames and resets seen, for tests to check what the pipeline did. */
  frames = 0;
  resets = 0;
  private pushedSamples = 0;
  private scoredMs = 0;
  private readonly pending: WakeWordDetection[];
  private closed = false;

  constructor(
    script: readonly ScriptedDetection[],
    readonly models: readonly string[] = ['hey_jarvis'],
  ) {
    this.pending = script
      .map((d) => ({ model: models[0] as string, score: 0.9, endMs: d.atMs - 200, ...d }))
      .sort((a, b) => a.atMs - b.atMs);
  }

  push(frame: Int16Array): void {
    if (this.closed) return;
    this.frames++;
    this.pushedSamples += frame.length;
    const nowMs = (this.pushedSamples / RATE) * 1000;
    while (this.scoredMs + STEP_MS <= nowMs) {
      this.scoredMs += STEP_MS;
      const stepEnd = this.scoredMs;
      const firing = this.pending.filter((d) => d.atMs > stepEnd - STEP_MS && d.atMs <= stepEnd);
      this.scores.next({
        atMs: stepEnd,
        scores: Object.fromEntries(this.models.map((m) => [m, firing.some((d) => d.model === m) ? 0.9 : 0])),
      });
    }
    while (this.pending.length && (this.pending[0] as WakeWordDetection).atMs <= nowMs) {
      this.detections.next(this.pending.shift() as WakeWordDetection);
    }
  }

  // Detections come out inside push: nothing is ever waiting.
  drain(): void {}

  reset(): void {
    this.resets++;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.detections.complete();
    this.scores.complete();
  }
}
