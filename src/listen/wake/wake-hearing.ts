import { RecentSamples } from '../../audio/recent-samples.js';
import type { SpeexDenoiser } from '../../audio/speex-denoiser.js';
import { WakeAttention, type Attention } from './wake-attention.js';
import type { WakeClassifier } from './wake-classifiers.js';
import type { WakeDecider, WakeWordDetection, WakeWordScores } from './wake-decider.js';
import type { WakeEmbedding } from './wake-embedding.js';
import type { MelNetwork } from './mel-network.js';
import {
  EMBEDDING_REACH_SAMPLES,
  firstFrameBeforeEndMs,
  MEL_FRAME_MS,
  WAKE_SAMPLE_RATE_HZ,
  WakeFeatures,
} from './wake-features.js';
import { PACE_WORK, type WakePace } from './wake-pace.js';
import { historySteps, WakeScorer, type ScoredStep } from './wake-scorer.js';

const MS_PER_SAMPLE = 1000 / WAKE_SAMPLE_RATE_HZ;
const LOOK_CLOSER_AT = 0.1;
/** Sound is a step louder than this (dBFS), or this far above the room's noise floor (dB); see WakeAttention. */
const SOUND_CAP_DBFS = -50;
const SOUND_MARGIN_DB = 10;
/** A room whose noise floor is at least this loud (dBFS) has noise worth taking out before scoring. */
const NOISY_ROOM_DBFS = -58;
/** What the denoiser holds back from a stretch before (one frame) spoils the first step heard again: it is not embedded. */
const SPOILED_STEPS = 1;

/** What the detector hears with: its models, and what it was asked to do. */
export interface WakeHearingParts {
  melspectrogram: MelNetwork;
  embedding: WakeEmbedding;
  classifiers: readonly WakeClassifier[];
  /** Names of the scores, in order. */
  models: readonly string[];
  decider: WakeDecider;
  denoiser: SpeexDenoiser | undefined;
  /** Samples per step: 1280 (80 ms, as openWakeWord) or 640. */
  stepSamples: number;
  lookCloserAt: number | undefined;
  /** Score every step, quiet or not. */
  everyStep: boolean;
  /** Most steps heard between two `giveWay`s, the look-back at a sound's onset included. */
  batchSteps: number;
  /** Lets the thread's other work (Silero's frames) run before the next batch of steps is heard. */
  giveWay: () => Promise<void>;
}

/**
 * How the wake-word detector hears the audio it takes from its queue, step by step: quiet steps
 * are only kept (the last two seconds of them), and at a sound a stretch of scoring begins from
 * those seconds (what the classifiers' windows reach back over), so a wake word is scored as if
 * every step had been. Scores and detections go to `out`.
 */
export class WakeHearing {
  private readonly recent: RecentSamples;
  private readonly attention: WakeAttention;
  private scorer: WakeScorer | undefined;
  /** Whether the stretch under way is denoised. */
  private denoising = false;
  /** Stream time up to which steps have been given to the decider. */
  private decidedMs = -Infinity;
  private readonly zeros: Float32Array;
  /** Every model's score on a quiet step. */
  private readonly none: Readonly<Record<string, number>>;

  constructor(
    private readonly parts: WakeHearingParts,
    private readonly out: { scores(scores: WakeWordScores): void; detection(detection: WakeWordDetection): void },
  ) {
    this.zeros = new Float32Array(parts.models.length);
    this.none = Object.freeze(this.named(this.zeros));
    // The longest look back at either step size.
    const reach = this.lookBackSamples(parts.stepSamples);
    this.recent = new RecentSamples(reach);
    this.attention = new WakeAttention({
      capDbfs: SOUND_CAP_DBFS,
      marginDb: SOUND_MARGIN_DB,
      holdMs: reach * MS_PER_SAMPLE,
    });
  }

  /** Hears whole steps of `raw` from `startSample` on, at `pace`; stops between steps once `interrupted`. */
  async hear(raw: Int16Array, startSample: number, pace: WakePace, interrupted: () => boolean): Promise<void> {
    const { stepSamples } = this.parts;
    const steps = raw.length / stepSamples;
    const step = (s: number): Int16Array => raw.subarray(s * stepSamples, (s + 1) * stepSamples);
    const attention: Attention[] = Array.from({ length: steps }, (_, s) =>
      this.parts.everyStep ? 'busy' : this.attention.next(step(s)),
    );
    for (let s = 0; s < steps;) {
      if (interrupted()) return;
      if (attention[s] === 'idle') {
        this.recent.append(step(s));
        this.out.scores({ atMs: (startSample + (s + 1) * stepSamples) * MS_PER_SAMPLE, scores: this.none });
        this.scorer = undefined;
        s++;
        continue;
      }
      let end = s + 1;
      while (end < steps && attention[end] === 'busy') end++;
      const run = raw.subarray(s * stepSamples, end * stepSamples);
      await this.score(run, startSample + s * stepSamples, pace, attention[s] === 'begin', interrupted);
      s = end;
    }
  }

  /** Forgets what was heard (the room's noise floor is kept). */
  reset(): void {
    this.scorer = undefined;
    this.recent.clear();
    this.attention.rest();
    this.parts.decider.reset();
    this.decidedMs = -Infinity;
    this.parts.denoiser?.reset();
  }

  /** How far back a stretch starts before its first sound: its classifiers' windows and the audio the oldest reads. */
  private lookBackSamples(stepSamples: number): number {
    const reach = Math.ceil(EMBEDDING_REACH_SAMPLES / stepSamples);
    return (reach + historySteps(this.parts.classifiers, stepSamples) + SPOILED_STEPS) * stepSamples;
  }

  /**
   * Scores a run of steps with sound: a new stretch begins with the audio kept from just before
   * it. At most `batchSteps` steps are heard at a time, giving way before each batch: at 7 % of
   * a core the look-back alone (over 2 s of audio) held the thread for a second.
   */
  private async score(
    run: Int16Array,
    startSample: number,
    pace: WakePace,
    begins: boolean,
    interrupted: () => boolean,
  ): Promise<void> {
    const { melspectrogram, embedding, classifiers, denoiser, stepSamples, batchSteps } = this.parts;
    const work = PACE_WORK[pace];
    let segment = run;
    let heardOnly = 0;
    // Denoising stops at once when the pace says so (the stretch starts again from the audio kept); the rest changes as it goes.
    if (!this.scorer || begins || (this.denoising && !work.denoise)) {
      const frames = Math.max(...classifiers.map((c) => c.frames));
      const features = new WakeFeatures(melspectrogram, embedding, stepSamples, frames);
      const kept = this.recent.length - (this.recent.length % stepSamples);
      const before = this.recent.last(Math.min(kept, this.lookBackSamples(stepSamples)));
      heardOnly = before.length / stepSamples;
      const closer = this.parts.lookCloserAt ?? LOOK_CLOSER_AT;
      this.scorer = new WakeScorer(features, classifiers, closer, work.between, this.parts.giveWay, heardOnly);
      // The noise is taken out of a stretch heard in a noisy room; in a quiet one there is none to take out.
      this.denoising = denoiser !== undefined && work.denoise && this.attention.floorDbfs >= NOISY_ROOM_DBFS;
      segment = new Int16Array(before.length + run.length);
      segment.set(before);
      segment.set(run, before.length);
    } else this.scorer.lookBetween(work.between);
    this.recent.append(run);
    const scorer = this.scorer;
    const denoise = this.denoising ? denoiser : undefined;
    const lagMs = denoise ? denoise.latencySamples * MS_PER_SAMPLE : 0;
    const firstSample = startSample - heardOnly * stepSamples;
    const batch = batchSteps * stepSamples;
    this.calmWhileRefractory(scorer, firstSample * MS_PER_SAMPLE - lagMs);
    for (let from = 0; from < segment.length; from += batch) {
      await this.parts.giveWay();
      if (interrupted()) return;
      const samples = segment.subarray(from, from + batch);
      const scored = await scorer.next(denoise ? denoise.process(samples) : samples, interrupted);
      if (interrupted()) return;
      const first = firstSample + from;
      scored.forEach((step, i) => this.decide(step, (first + (i + 1) * stepSamples) * MS_PER_SAMPLE, lagMs));
      this.calmWhileRefractory(scorer, (first + scored.length * stepSamples) * MS_PER_SAMPLE - lagMs);
    }
  }

  /**
   * The steps after `scoredToMs` that cannot make a detection (the decider's refractory period
   * after one) are not looked at closer: on a slow board that work put the detector seconds
   * behind at every wake word, and the command waited for it.
   */
  private calmWhileRefractory(scorer: WakeScorer, scoredToMs: number): void {
    const stepMs = this.parts.stepSamples * MS_PER_SAMPLE;
    const steps = Math.ceil((this.parts.decider.quietUntilMs - scoredToMs) / stepMs) - 1;
    if (steps > 0) scorer.calm(steps);
  }

  /** A step's scores to the decider; the denoised audio lags what was pushed by `lagMs`, which detections wait for. */
  private decide(step: ScoredStep, pushedEndMs: number, lagMs: number): void {
    const endMs = pushedEndMs - lagMs;
    if (endMs <= this.decidedMs) return;
    this.decidedMs = endMs;
    const scores = step.scores ?? this.zeros;
    if (step.scores) this.out.scores({ atMs: endMs, scores: this.named(scores) });
    const stepSamples = (step.loudness.length * MEL_FRAME_MS) / MS_PER_SAMPLE;
    const found = this.parts.decider.push({
      endMs,
      scores,
      loudness: step.loudness,
      firstFrameMs: endMs - firstFrameBeforeEndMs(stepSamples),
      frameMs: MEL_FRAME_MS,
    });
    for (const detection of found) this.out.detection({ ...detection, atMs: detection.atMs + lagMs });
  }

  private named(scores: Float32Array): Record<string, number> {
    return Object.fromEntries(this.parts.models.map((m, i) => [m, scores[i] ?? 0]));
  }
}
