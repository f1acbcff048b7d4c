import { Subject, type Observable, type Subscription } from 'rxjs';
import type { WakeBacklog, WakeWordDetection, WakeWordDetector, WakeWordScores } from '../../pipeline/ports.js';
import { asError } from '../../system/as-error.js';

/**
 * A wake-word detector whose models are still loading: hark listens from its start, and what it
 * hears meanwhile is kept (resets included) and handed over in order once they have loaded, so
 * the stream clock and every detection come out as if they had been there all along. Should they
 * fail to load, it hears nothing (`failedToLoad`), keeps nothing, and `loadError` says why.
 */
export class LoadingWakeWord implements WakeWordDetector {
  private readonly detections$ = new Subject<WakeWordDetection>();
  private readonly scores$ = new Subject<WakeWordScores>();
  readonly detections: Observable<WakeWordDetection> = this.detections$.asObservable();
  readonly scores: Observable<WakeWordScores> = this.scores$.asObservable();
  private readonly backlog$ = new Subject<WakeBacklog>();
  readonly backlog: Observable<WakeBacklog> = this.backlog$.asObservable();
  private heldSamples = 0;
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
        this.heldSamples = 0;
      },
    );
  }

  /** The names detections can carry: none before the models have loaded. */
  get models(): readonly string[] {
    return this.detector?.models ?? [];
  }

  /** The models could not load: nothing is heard, and the transcript's wake phrase decides instead. */
  get failedToLoad(): boolean {
    return this.failure !== undefined;
  }

  /** Why the models could not load. */
  get loadError(): Error | undefined {
    return this.failure;
  }

  push(frame: Int16Array): void {
    if (this.detector) this.detector.push(frame);
    else if (!this.failedToLoad && !this.closed) {
      this.held.push(frame.slice());
      this.heldSamples += frame.length;
    }
  }

  /** What waits to be scored: all that was heard while the models load, then the detector's own backlog. */
  get backlogMs(): number {
    return this.detector ? (this.detector.backlogMs ?? 0) : this.heldSamples / 16;
  }

  async drain(): Promise<void> {
    await this.loaded;
    await this.detector?.drain();
  }

  reset(): void {
    if (this.detector) this.detector.reset();
    else if (!this.failedToLoad && !this.closed) this.held.push('reset');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.held = [];
    await this.loaded;
    await this.detector?.close();
    for (const s of this.forwarding) s.unsubscribe();
    this.detections$.complete();
    this.scores$.complete();
    this.backlog$.complete();
  }

  /**
   * Hands everything heard over at once, in order: the detector sees how far behind it starts,
   * and does less per step until it has caught up (a live detector's pace), rather than scoring
   * a backlog at full cost while more audio piles up behind it.
   */
  private start(detector: WakeWordDetector): void {
    this.forwarding = [
      detector.detections.subscribe(this.detections$),
      detector.scores.subscribe(this.scores$),
      ...(detector.backlog ? [detector.backlog.subscribe(this.backlog$)] : []),
    ];
    for (const item of this.held) {
      if (item === 'reset') detector.reset();
      else detector.push(item);
    }
    this.held = [];
    this.heldSamples = 0;
    if (!this.closed) this.detector = detector;
  }
}
