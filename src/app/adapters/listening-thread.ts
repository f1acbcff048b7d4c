import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Subject } from 'rxjs';
import { VAD_FRAME_SAMPLES } from '../../listen/vad.js';
import type { Vad, WakeBacklog, WakeWordDetection, WakeWordDetector, WakeWordScores } from '../../pipeline/ports.js';
import { PACKAGE_ROOT } from '../../system/package-paths.js';
import type { FromListening, ListeningSetup, ToListening } from './listening-messages.js';

/** What the wake-word detector of the thread says once its models have loaded. */
export interface WakeReady {
  models: string[];
  denoising: boolean;
  denoiseError: string | undefined;
  /** Whether each window's embedding shares the work of the rows it has in common with the one before. */
  embeddingStreamed: boolean;
}

/** The thread's script: the bundled one of an installed hark, else the compiled module (a checkout's tests). */
function workerScript(): string {
  const bundled = join(PACKAGE_ROOT, 'dist', 'bin', 'listening-worker.js');
  return existsSync(bundled) ? bundled : join(PACKAGE_ROOT, 'dist', 'app', 'adapters', 'listening-worker.js');
}

/**
 * Silero and openWakeWord in a thread of their own (see listening-worker.ts), seen from the main
 * thread as the Vad and the WakeWordDetector the voice loop takes: `vad` and `wake` settle once
 * their models have loaded (or failed to). On a board with more than one core they run beside the
 * replies; on one core they never hold up the microphone and the player for the length of a model
 * load or run.
 */
export class ListeningThread {
  readonly vad: Promise<Vad> | undefined;
  readonly wake: Promise<WakeWordDetector & WakeReady> | undefined;
  private readonly worker: Worker;
  private readonly probabilities: { resolve(p: number): void; reject(error: Error): void }[] = [];
  private readonly drains = new Map<number, () => void>();
  private readonly detections$ = new Subject<WakeWordDetection>();
  private readonly scores$ = new Subject<WakeWordScores>();
  private readonly backlog$ = new Subject<WakeBacklog>();
  private vadFailure: Error | undefined;
  private pushedSamples = 0;
  private scoredMs = 0;
  private nextDrain = 0;
  private open: number;
  private readonly ended: Promise<void>;
  private settle: { vad?: (ready: boolean, why?: string) => void; wake?: (ready: WakeReady | string) => void } = {};

  constructor(setup: ListeningSetup) {
    this.worker = new Worker(workerScript(), { workerData: setup });
    this.open = (setup.silero ? 1 : 0) + (setup.wake ? 1 : 0);
    this.ended = new Promise((resolve) => this.worker.once('exit', () => resolve()));
    this.worker.on('message', (message: FromListening) => this.receive(message));
    this.worker.on('error', (error) => this.lost(error));
    this.worker.once('exit', (code) => this.lost(new Error(`the listening thread ended (${code})`)));
    this.vad = setup.silero
      ? new Promise<Vad>((resolve, reject) => {
          this.settle.vad = (ready, why) => (ready ? resolve(this.vadFacade()) : reject(new Error(why)));
        })
      : undefined;
    this.wake = setup.wake
      ? new Promise<WakeWordDetector & WakeReady>((resolve, reject) => {
          this.settle.wake = (ready) =>
            typeof ready === 'string' ? reject(new Error(ready)) : resolve(this.wakeFacade(ready));
        })
      : undefined;
  }

  /** Ends the thread once neither model is used any more (each facade's close, or a model that failed). */
  private async release(): Promise<void> {
    if (--this.open > 0) return;
    this.send({ type: 'close' });
    await this.ended;
  }

  /** A full garbage collection in the thread, between what it was sent before and after. */
  collectGarbage(): void {
    if (this.open > 0) this.send({ type: 'collect' });
  }

  private send(message: ToListening, transfer: ArrayBuffer[] = []): void {
    this.worker.postMessage(message, transfer);
  }

  /** A copy of the frame, its buffer handed over: a view would take the whole buffer it is cut from. */
  private sendFrame(frame: Int16Array, vad: boolean, wake: boolean): void {
    const samples = frame.slice();
    this.send({ type: 'frame', samples, vad, wake }, [samples.buffer]);
  }

  private receive(message: FromListening): void {
    switch (message.type) {
      case 'vad-ready':
        return this.settle.vad?.(true);
      case 'vad-failed':
        void this.release();
        return this.settle.vad?.(false, message.message);
      case 'wake-ready':
        return this.settle.wake?.(message);
      case 'wake-failed':
        void this.release();
        return this.settle.wake?.(message.message);
      case 'probability':
        return this.probabilities.shift()?.resolve(message.value);
      case 'scores':
        this.scoredMs = message.scores.atMs;
        return this.scores$.next(message.scores);
      case 'detection':
        return this.detections$.next(message.detection);
      case 'backlog':
        return this.backlog$.next(message.backlog);
      case 'drained':
        this.drains.get(message.id)?.();
        this.drains.delete(message.id);
        return;
      case 'failed':
        return message.model === 'vad'
          ? this.vadFailed(new Error(message.message))
          : this.wakeFailed(new Error(message.message));
      case 'closed':
        return;
    }
  }

  /** The thread died: whatever waits on it fails, and what was asked of it no more. */
  private lost(error: Error): void {
    this.settle.vad?.(false, error.message);
    this.settle.wake?.(error.message);
    this.vadFailed(error);
    this.wakeFailed(error);
    for (const done of this.drains.values()) done();
    this.drains.clear();
  }

  private vadFailed(error: Error): void {
    this.vadFailure ??= error;
    for (const pending of this.probabilities.splice(0)) pending.reject(error);
  }

  private wakeFailed(error: Error): void {
    if (this.detections$.closed || this.detections$.hasError) return;
    this.detections$.error(error);
    this.scores$.error(error);
    this.backlog$.error(error);
  }

  private vadFacade(): Vad {
    let closed = false;
    return {
      name: 'silero',
      frameSamples: VAD_FRAME_SAMPLES,
      probability: (frame) => {
        if (this.vadFailure) return Promise.reject(this.vadFailure);
        const answer = new Promise<number>((resolve, reject) => this.probabilities.push({ resolve, reject }));
        this.sendFrame(frame, true, false);
        return answer;
      },
      reset: () => this.send({ type: 'vad-reset' }),
      close: async () => {
        if (closed) return;
        closed = true;
        await this.release();
      },
    };
  }

  private wakeFacade(ready: WakeReady): WakeWordDetector & WakeReady {
    let closed = false;
    const backlogMs = (): number => Math.max(0, this.pushedSamples / 16 - this.scoredMs);
    return {
      ...ready,
      detections: this.detections$.asObservable(),
      scores: this.scores$.asObservable(),
      backlog: this.backlog$.asObservable(),
      get backlogMs(): number {
        return backlogMs();
      },
      push: (frame) => {
        if (closed) return;
        this.pushedSamples += frame.length;
        this.sendFrame(frame, false, true);
      },
      drain: () =>
        new Promise<void>((resolve) => {
          if (closed || this.detections$.hasError) return resolve();
          const id = this.nextDrain++;
          this.drains.set(id, resolve);
          this.send({ type: 'drain', id });
        }),
      reset: () => this.send({ type: 'wake-reset' }),
      close: async () => {
        if (closed) return;
        closed = true;
        await this.release();
        this.detections$.complete();
        this.scores$.complete();
        this.backlog$.complete();
      },
    };
  }
}
