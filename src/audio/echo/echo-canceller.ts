import type { HarkConfig } from '../../config/schema.js';
import { dbfs, meanSquare, rms } from '../pcm.js';
import { EchoAlignment } from './alignment.js';
import { BandPowers } from './band-powers.js';
import { DelayEstimator } from './delay-estimator.js';
import { EchoReference } from './echo-reference.js';
import { EchoTrust, type EchoVerdict } from './echo-trust.js';
import { SpeexCanceller, type SpeexCancellerState } from './speex-canceller.js';

/** Frame of the canceller: 16 ms at 16 kHz, two to a VAD frame. */
export const ECHO_FRAME_SAMPLES = 256;

export type { EchoVerdict };

/** The `echo` section of the configuration (see config/default.yaml), and the audio's rate and frame. */
export type EchoCancellerOptions = HarkConfig['echo'] & { sampleRateHz: number; frameSamples: number };

/** What the echo canceller is doing, for logs and a status page. */
export interface EchoCancellerState extends SpeexCancellerState {
  /** The reference (what hark played) reaches into the filter's span now. */
  active: boolean;
  /** Delay in use, ms: estimated, else the initial guess. */
  delayMs: number;
  /** How sure the last delay estimate was (0..1), null before any. */
  delayConfidence: number | null;
  /** Delay estimates accepted so far. */
  delayUpdates: number;
  /** How much of the microphone's sound lately is what hark played, at that delay (0..1; see DelayEstimator.coherence). */
  coherence: number | null;
  /** The filter was re-aligned to a new delay (and started over) this many times. */
  realignments: number;
  /** Levels of the last frame, dBFS: microphone, output, and what was taken out (the predicted echo). */
  micDbfs: number;
  outDbfs: number;
  echoDbfs: number;
}

/** Minimum confidence of a delay estimate that is used. */
const MIN_CONFIDENCE = 0.2;
/** After this long with nothing playing, the delay's drift is carried over the silence. */
const CARRY_AFTER_IDLE_MS = 500;
/**
 * Output this many times the microphone's power (6 dB): the filter added an echo instead of
 * taking one out (speexdsp's own sanity check uses the same mark). The user talking over a
 * filter still adapting comes out a little louder than heard; that is left as it is.
 */
const ADDED_ECHO = 4;
/** Microphone audio kept to train the filter again after it was re-aligned, ms. */
const REPLAY_MS = 1500;

/**
 * Takes hark's own voice out of the microphone: the echo reference (what the player played,
 * on the monotonic clock) is shifted by the estimated acoustic and device delay and given,
 * frame by frame, to speexdsp's adaptive filter with the microphone audio.
 * While nothing has played for longer than the filter's span, frames pass through untouched.
 */
export class AcousticEchoCanceller {
  readonly frameSamples: number;
  private readonly alignment: EchoAlignment;
  private realigned = 0;
  /** Recent microphone frames with their capture times, replayed through the filter after a re-alignment. */
  private readonly recent: { mic: Int16Array; captureTimeMs: number }[] = [];
  private idleFrames = Infinity;
  private last = { micDbfs: -120, outDbfs: -120, echoDbfs: -120, active: false };
  private readonly trust: EchoTrust;
  /** The player's stream the last frame with something to cancel read (see EchoReference.streamAt). */
  private stream = 0;
  /** The player's stream the delay estimator was last given (unshifted: where it starts), 0 before any. */
  private pushed = 0;
  private verdict: EchoVerdict = {
    possible: false,
    trusted: false,
    predictedDbfs: -120,
    lossDb: null,
    takenDb: 0,
    beyondDb: null,
  };
  private readonly bands: BandPowers;

  constructor(
    private readonly speex: SpeexCanceller,
    readonly reference: EchoReference,
    private readonly estimator: DelayEstimator,
    private readonly options: EchoCancellerOptions,
  ) {
    this.frameSamples = options.frameSamples;
    this.trust = new EchoTrust({
      frameMs: (options.frameSamples / options.sampleRateHz) * 1000,
      leadMs: options.leadMs,
    });
    this.alignment = new EchoAlignment(estimator, options);
    this.bands = new BandPowers(options.frameSamples);
  }

  /** Loads speexdsp; throws EchoCancellerUnavailableError when it cannot. */
  static async load(options: EchoCancellerOptions, wasmPath?: string): Promise<AcousticEchoCanceller> {
    const rate = options.sampleRateHz;
    const speex = await SpeexCanceller.load(
      {
        sampleRateHz: rate,
        frameSamples: options.frameSamples,
        tailSamples: Math.round((options.tailMs / 1000) * rate),
        suppressDb: options.suppressDb,
        suppressActiveDb: Math.round(options.suppressDb / 2),
      },
      wasmPath,
    );
    const reference = new EchoReference({
      sampleRateHz: rate,
      historyMs: options.maxDelayMs + options.delayWindowMs + options.tailMs + 1000,
    });
    const estimator = new DelayEstimator({
      sampleRateHz: rate,
      maxDelayMs: options.maxDelayMs,
      windowMs: options.delayWindowMs,
      hopMs: options.delayHopMs,
      minConfidence: MIN_CONFIDENCE,
    });
    return new AcousticEchoCanceller(speex, reference, estimator, options);
  }

  /**
   * Whether frames from `captureTimeMs` on, as long as `mic`, are out of reach of anything hark
   * played (the filter's span, and the window the delay is measured over): then they pass as
   * they are, and cost next to nothing, but the canceller counts them as it does a silence.
   * Whole frames of `frameSamples`.
   */
  passes(mic: Int16Array, captureTimeMs: number): boolean {
    const rate = this.options.sampleRateHz;
    const { maxDelayMs, delayWindowMs, tailMs } = this.options;
    const reach = Math.max(maxDelayMs + delayWindowMs, this.alignment.shiftMs + tailMs);
    const durationMs = (mic.length / rate) * 1000;
    const at = this.alignment.peek(captureTimeMs);
    if (this.reference.playing(at - reach, at + durationMs)) return false;
    this.alignment.rest(captureTimeMs, durationMs);
    this.estimator.skip(mic.length);
    this.recent.length = 0;
    const frames = mic.length / this.frameSamples;
    for (let i = 0; i < frames; i++) this.verdict = this.trust.idle();
    this.idleFrames += frames;
    const level = dbfs(rms(mic));
    this.last = { micDbfs: level, outDbfs: level, echoDbfs: -120, active: false };
    return true;
  }

  /** One frame of microphone audio whose first sample was captured at `captureTimeMs` (the player's clock). */
  cancel(mic: Int16Array, captureTimeMs: number): Int16Array {
    const n = this.frameSamples;
    const frameMs = (n / this.options.sampleRateHz) * 1000;
    const at = this.alignment.place(captureTimeMs, frameMs);
    const pushing = this.reference.streamAt(at + frameMs);
    if (pushing !== 0 && pushing !== this.pushed) {
      if (this.pushed !== 0) this.estimator.newStream();
      this.pushed = pushing;
    }
    this.estimator.push(mic, this.reference.read(at, n));
    this.remember(mic, at);
    const followed = this.alignment.follow(at, frameMs);
    if (followed === 'realigned') this.realign();
    // The reference moved under the filter: it must show again that it cancels.
    if (followed === 'stepped') this.trust.streamRestarted();
    let from = at - this.alignment.shiftMs;
    const active = this.reference.playing(from - this.options.tailMs, from + frameMs);
    if (!active) {
      this.idleFrames++;
      this.last = { micDbfs: dbfs(rms(mic)), outDbfs: dbfs(rms(mic)), echoDbfs: -120, active };
      this.verdict = this.trust.idle();
      return Int16Array.from(mic);
    }
    from -= this.alignment.active(at, this.idleFrames !== Infinity && this.idleFrames * frameMs >= CARRY_AFTER_IDLE_MS);
    if (this.idleFrames > 0 && this.idleFrames !== Infinity) this.flush();
    this.idleFrames = 0;
    const stream = this.reference.streamAt(from + frameMs);
    if (stream !== this.stream && this.stream !== 0) this.trust.streamRestarted();
    this.stream = stream;
    const reference = this.reference.read(from, n);
    const filtered = this.speex.cancel(mic, reference);
    const [micBands, referenceBands] = this.bands.of(mic, reference);
    this.verdict = this.trust.cancelled(
      meanSquare(mic),
      meanSquare(reference),
      meanSquare(filtered),
      this.speex.erleDb,
      this.estimator.coherence(),
      { mic: micBands, reference: referenceBands },
    );
    // Far louder than what was heard: the filter took out an echo that is not there (a paused
    // player dropped what it had buffered, so what the reference says played never sounded).
    // What it left is its guess of hark's voice, inverted, and would be heard as speech.
    const out = meanSquare(filtered) > ADDED_ECHO * meanSquare(mic) ? Int16Array.from(mic) : filtered;
    const echo = new Int16Array(n);
    for (let i = 0; i < n; i++) echo[i] = Math.max(-32768, Math.min(32767, (mic[i] as number) - (out[i] as number)));
    this.last = { micDbfs: dbfs(rms(mic)), outDbfs: dbfs(rms(out)), echoDbfs: dbfs(rms(echo)), active };
    return out;
  }

  /** How many times the filter was re-aligned to a new delay (and started over). */
  get realignments(): number {
    return this.realigned;
  }

  /** How many times a new stream of the player's sounded with a delay a step from the last, which the reference took at once. */
  get steps(): number {
    return this.alignment.steps;
  }

  /** What is known about the echo in the frame just cancelled (see EchoVerdict). */
  lastVerdict(): EchoVerdict {
    return this.verdict;
  }

  state(): EchoCancellerState {
    const estimate = this.estimator.estimate();
    return {
      ...this.speex.state(),
      ...this.last,
      delayMs: estimate?.delayMs ?? this.options.initialDelayMs,
      delayConfidence: estimate?.confidence ?? null,
      delayUpdates: estimate?.updates ?? 0,
      coherence: this.estimator.coherence(),
      realignments: this.realigned,
    };
  }

  /** Forgets the echo path and the delay (e.g. after the playback device changed). */
  reset(): void {
    this.speex.reset();
    this.trust.reset();
    this.stream = 0;
    this.pushed = 0;
    this.alignment.reset();
    this.estimator.reset();
    this.idleFrames = Infinity;
  }

  close(): void {
    this.speex.close();
  }

  /** The reference was re-aligned to a new delay: the filter starts over, trained on the recent audio. */
  private realign(): void {
    this.realigned++;
    this.speex.reset();
    this.trust.restart();
    this.replay();
  }

  private remember(mic: Int16Array, captureTimeMs: number): void {
    this.recent.push({ mic: Int16Array.from(mic), captureTimeMs });
    const keep = Math.ceil(REPLAY_MS / ((this.frameSamples / this.options.sampleRateHz) * 1000));
    if (this.recent.length > keep) this.recent.shift();
  }

  /** Runs the recent audio (all but the frame being processed) through the filter at the new alignment. */
  private replay(): void {
    for (const { mic, captureTimeMs } of this.recent.slice(0, -1)) {
      const reference = this.reference.read(captureTimeMs - this.alignment.shiftMs, this.frameSamples);
      this.speex.cancel(mic, reference);
      this.trust.trainedOn(meanSquare(reference));
    }
    this.idleFrames = 0;
  }

  /** After a silence the filter's memory of the reference is stale: run it over silence first. */
  private flush(): void {
    const zeros = new Int16Array(this.frameSamples);
    const frames = Math.ceil(this.speex.options.tailSamples / this.frameSamples) + 1;
    for (let i = 0; i < Math.min(frames, this.idleFrames); i++) this.speex.cancel(zeros, zeros);
  }
}
