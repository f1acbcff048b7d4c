import { Subject, type Observable, type Subscription } from 'rxjs';
import type { WakeWordDetection, WakeWordDetector, WakeWordScores } from '../pipeline/ports.js';
import { asError } from '../system/as-error.js';

/** A second of 16 kHz audio. */
const HAND_OVER_SAMPLES = 16000;

/**
 * A wake-word detector whose models are still loading: hark listens from its start, and what it
 * hears meanwhile is kept (resets included) and handed over in order once they have loaded, so
 * the stream clock and every detection come out as if they had been there all along. Should they
 * fail to load, it hears nothing (`deaf`), keeps nothing, and `failed` says why.
 */
export class LateWakeWord implements WakeWordDetector {
  private readonly detections$ = new Subject<WakeWordDetection>();
  private readonly scores$ = new Subject<WakeWordScores>();
  readonly detections: Observable<WakeWordDetection> = this.detections$.asObservable();
  readonly scores: Observable<WakeWordScores> = this.scores$.asObservable();
  /** Settles once the models have loaded or failed to. */
  readonly loaded: Promise<void>;
  private detector: WakeWordDetector | undefined;
  private held: (Int16Array | 'reset')[] = [];
  private forwarding: Subscription[] = [];
  private failure: Error | undefined;
  private closed = false;

  constructor(loading: Promise<WakeWordDetector>) {
    this.loaded = loading.then(
      (detector) => this.start(detector),
      (error: unknown) => {
        this.failure = asError(error);
        this.held = [];
      },
    );
  }

  /** The names detections can carry: none before the models have loaded. */
  get models(): readonly string[] {
    return this.detector?.models ?? [];
  }

  /** The models could not load: nothing is heard, and the transcript's wake phrase decides instead. */
  get deaf(): boolean {
    return this.failure !== undefined;
  }

  /** Why the models could not load. */
  get failed(): Error | undefined {
    return this.failure;
  }

  push(frame: Int16Array): void {
    if (this.detector) this.detector.push(frame);
    else if (!this.deaf && !this.closed) this.held.push(frame.slice());
  }

  async drain(): Promise<void> {
    await this.loaded;
    await this.detector?.drain();
  }

  reset(): void {
    if (this.detector) this.detector.reset();
    else if (!this.deaf && !this.closed) this.held.push('reset');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.held = [];
    await this.loaded;
    await this.detector?.close();
    for (const s of this.forwarding) s.unsubscribe();
    this.detections$.complete();
    this.scores$.complete();
  }

  /**
   * Hands what was heard over a second at a time, each scored before the next: all at once, the
   * detector would drop what a live one keeps waiting beyond its backlog (2 s), should the models
   * have taken longer than that. What is heard meanwhile joins the queue, in order.
   */
  private async start(detector: WakeWordDetector): Promise<void> {
    this.forwarding = [detector.detections.subscribe(this.detections$), detector.scores.subscribe(this.scores$)];
    while (this.held.length > 0 && !this.closed) {
      let samples = 0;
      while (this.held.length > 0 && samples < HAND_OVER_SAMPLES) {
        const item = this.held.shift() as Int16Array | 'reset';
        if (item === 'reset') detector.reset();
        else {
          detector.push(item);
          samples += item.length;
        }
      }
      await detector.drain();
    }
    this.detector = detector;
  }
}
