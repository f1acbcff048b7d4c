/**
 * How far the echo canceller's account of a frame can be trusted, frame by frame: whether the
 * echo may be in it at all, whether the filter has converged on the echo path (so what it took
 * out is the echo and what it left is not), and otherwise how loud the echo may be, from what
 * was played and the echo path's measured loss. Pure: it is given powers, it reads no clock.
 */
import { NO_ECHO_DBFS } from '../frames.js';
import { BandPath } from './band-path.js';
import { EchoPath, LOSS_MIN_FRAMES, LOSS_SMOOTHING, REFERENCE_FLOOR } from './echo-path.js';
import { WordLosses } from './word-losses.js';

/** Whether a frame may hold hark's echo, and whether the canceller's account of it can be trusted. */
export interface EchoVerdict {
  /** Something hark played is within the filter's reach: its echo may be in the frame. */
  possible: boolean;
  /**
   * The filter has converged since the echo path last changed and still takes enough out of
   * hark's words: what it took out is the echo, and what it left is not.
   */
  trusted: boolean;
  /**
   * The loudest the echo may be in this frame, dBFS: the loudest of what was played in the
   * stretch that echoes into it, through the echo path's measured loss; null before that loss
   * was measured (NO_ECHO_DBFS when nothing audible was played within reach).
   */
  predictedDbfs: number | null;
  /**
   * What the filter took out of more than half of the last frames of hark's words since the
   * player's stream last (re)started, dB, capped (see WordLosses); 0 until known, and while most
   * of the last few frames of words came through untouched.
   */
  takenDb: number;
  /**
   * How far below the echo it takes out the filter leaves hark's voice, dB: its echo return loss
   * enhancement on the frames that held nothing but the echo (the median over the last seconds
   * of hark's words, else, before there are enough, smoothed over all of them). Null until
   * converged and measured.
   */
  lossDb: number | null;
  /**
   * How far what the microphone heard beyond the echo predicted band by band lies under that
   * echo, dB (see BandPath): the user heard where hark's voice is not. Null while unknown.
   */
  beyondDb: number | null;
}

/** A frame's power in frequency bands (see BandPowers), of the microphone and of the reference given to the filter. */
export interface FrameBands {
  mic: Float64Array;
  reference: Float64Array;
}

export interface EchoTrustOptions {
  /** Length of a frame, ms. */
  frameMs: number;
  /** How much earlier than the echo's arrival the reference is read, ms (the canceller's lead). */
  leadMs: number;
}

/**
 * The filter counts as converged once it has been trained on this many frames of sound (about a
 * second: an earcon's tone alone is not enough) and its echo return loss enhancement has reached
 * this. It stays so until it starts over (re-aligned to a new delay).
 */
const CONVERGED_ERLE_DB = 15;
const CONVERGED_MIN_FRAMES = 60;
/**
 * After any stretch with nothing to cancel, and whenever the player starts a new stream (the
 * next sentence after it ran dry, a resume), the echo path may have changed: a new stream may
 * sound with another latency (a sound server's client starting up under load takes tens to
 * hundreds of ms; a pacat started on a resume sounded 24-48 ms later than before the pause),
 * clocks drift, people move. The filter is trusted again only once it cancels as well as a
 * converged one again: the echo return loss enhancement over the last RECHECK_FRAMES frames of
 * sound, words among them, is at least CONVERGED_ERLE_DB.
 */
const RECHECK_FRAMES = 12;
/**
 * A filter that takes less than this out of hark's voice cannot vouch for what it leaves,
 * however well its last few frames went: the echo path changed under it (a sound server's
 * loopback that resamples, a player restarted with another latency) and it has not caught up.
 * Two measures of it: after a pause, the smoothed loss over the last half second of hark's
 * voice alone must be at least this before the filter is trusted again; and at any time, the
 * median of the last seconds of hark's words alone (see WordLosses).
 */
const POOR_LOSS_DB = 10;

/** The frames a recheck is judged on hold words when what was played in them is at most this far below its mean power (6 dB). */
const WORDS_BELOW_MEAN = 4;

export class EchoTrust {
  private converged = false;
  /** Frames of sound the filter was trained on since it last started over. */
  private trained = 0;
  private idleFrames = 0;
  /** After an idle stretch, until the filter is trusted again. */
  private rechecking = false;
  /**
   * The last frames of sound since the filter last started or paused. The smoothed estimate
   * alone is not enough: after replies whose echo was lost in the room's noise, the first frames
   * of an echo grown loud (a speaker turned up) lift it over the mark before the filter has
   * cancelled anything.
   */
  private readonly lately: Powers[] = [];
  /** How loud the echo may be in each frame. */
  private readonly path: EchoPath;
  /** The same band by band. */
  private readonly bands: BandPath;
  /** Mean power of the microphone and of what the filter left, smoothed over the frames that held only the echo. */
  private echoOnly = { mic: 0, out: 0, frames: 0 };
  private readonly words = new WordLosses();

  constructor(options: EchoTrustOptions) {
    this.path = new EchoPath(options);
    this.bands = new BandPath(options);
  }

  /** A frame in which nothing played can echo. */
  idle(): EchoVerdict {
    this.idleFrames++;
    this.path.remember(0);
    this.bands.remember(null);
    return {
      possible: false,
      trusted: this.trusted(),
      predictedDbfs: NO_ECHO_DBFS,
      lossDb: this.lossDb(),
      takenDb: 0,
      beyondDb: null,
    };
  }

  /**
   * A frame the filter cancelled: mean powers of the microphone, of the reference given to the
   * filter and of what it left, its echo return loss enhancement so far, and how much of the
   * microphone's sound lately is the reference at the tracked delay (null while untracked), and
   * the microphone's and the reference's powers band by band (while not given, beyondDb is null).
   */
  cancelled(
    micPower: number,
    referencePower: number,
    outPower: number,
    erleDb: number | null,
    coherence: number | null = null,
    bands?: FrameBands,
  ): EchoVerdict {
    // What the filter did before the pause says nothing of how it cancels now.
    if (this.idleFrames > 0) this.streamRestarted();
    this.idleFrames = 0;
    this.path.remember(referencePower);
    this.bands.remember(bands?.reference ?? null);
    const beyondDb = bands ? this.bands.beyondDb(bands.mic, coherence) : null;
    if (bands) this.bands.hear(bands.mic);
    if (referencePower >= REFERENCE_FLOOR) {
      this.trained++;
      const beyond = this.path.beyondEcho(micPower);
      if (bands) this.bands.learn(bands.mic, bands.reference, beyondDb, beyond, coherence);
      if (!beyond) {
        this.learnLoss(micPower, outPower);
        if (referencePower >= this.path.meanReference / WORDS_BELOW_MEAN) {
          this.words.add(micPower, outPower);
          // A filter that no longer fits the echo path is not trusted again until it cancels well again.
          if (this.converged && !this.rechecking && this.words.misfitting()) this.streamRestarted();
        }
      }
      // Before the filter first converges, someone far louder than the echo (the suppressor
      // silencing their first words) says nothing of how well it cancels the echo.
      if (this.converged || !beyond) keepLast(this.lately, { mic: micPower, out: outPower, reference: referencePower });
      this.path.learn(micPower, referencePower, beyond, coherence);
    }
    this.converged ||= this.trained >= CONVERGED_MIN_FRAMES && (erleDb ?? 0) >= CONVERGED_ERLE_DB && this.cancelsWell();
    if (this.rechecking && this.cancelsWell() && this.heldWords() && !this.cancelsPoorly()) this.rechecking = false;
    return {
      possible: true,
      trusted: this.trusted(),
      predictedDbfs: this.path.predictedDbfs(),
      lossDb: this.lossDb(),
      takenDb: this.words.takenDb(),
      beyondDb,
    };
  }

  /**
   * The player started a new stream (a reply resumed, or the next sentence after it ran dry),
   * which may sound with another latency: the filter is trusted again only once it cancels the
   * new stream as a converged one does.
   */
  streamRestarted(): void {
    this.lately.length = 0;
    this.words.streamRestarted();
    this.rechecking = this.converged;
  }

  /** A frame the filter was trained on again (replayed after a re-alignment). */
  trainedOn(referencePower: number): void {
    if (referencePower >= REFERENCE_FLOOR) this.trained++;
  }

  /** The filter starts over (a new delay): it must converge again. */
  restart(): void {
    this.converged = false;
    this.trained = 0;
    this.rechecking = false;
    this.lately.length = 0;
    this.words.restart();
  }

  /** Everything is forgotten, the echo path's loss too (another device). */
  reset(): void {
    this.restart();
    this.path.reset();
    this.bands.reset();
    this.echoOnly = { mic: 0, out: 0, frames: 0 };
    this.idleFrames = 0;
  }

  /** The last frames of sound are cancelled as well as by a converged filter. */
  private cancelsWell(): boolean {
    return this.lately.length === RECHECK_FRAMES && erleOf(this.lately) >= CONVERGED_ERLE_DB;
  }

  /**
   * The last frames of sound were words, not the quiet between them: there the suppressor
   * silences what the filter leaves, and a filter taking 10 dB out of the words passes.
   */
  private heldWords(): boolean {
    const mean = this.lately.reduce((sum, frame) => sum + frame.reference, 0) / this.lately.length;
    return mean >= this.path.meanReference / WORDS_BELOW_MEAN;
  }

  /** Over the last half second or so of hark's voice alone, the filter took out less than POOR_LOSS_DB (smoothed powers). */
  private cancelsPoorly(): boolean {
    const loss = this.echoOnly;
    return loss.frames >= LOSS_MIN_FRAMES && lossOf(loss) < POOR_LOSS_DB;
  }

  /** Most of the last seconds of hark's words alone, the filter took out less than POOR_LOSS_DB. */
  private wordsCancelledPoorly(): boolean {
    const median = this.words.median;
    return median !== null && median < POOR_LOSS_DB;
  }

  private trusted(): boolean {
    return this.converged && !this.rechecking && !this.wordsCancelledPoorly();
  }

  private learnLoss(micPower: number, outPower: number): void {
    const loss = this.echoOnly;
    const a = loss.frames === 0 ? 1 : LOSS_SMOOTHING;
    loss.mic += a * (micPower - loss.mic);
    loss.out += a * (outPower - loss.out);
    loss.frames++;
  }

  private lossDb(): number | null {
    const loss = this.echoOnly;
    if (!this.converged) return null;
    return this.words.median ?? (loss.frames < LOSS_MIN_FRAMES ? null : lossOf(loss));
  }
}

/** Mean powers of the microphone, of what the filter left and of the reference in one frame. */
interface Powers {
  mic: number;
  out: number;
  reference: number;
}

/**
 * Echo return loss enhancement over some frames, dB: the ratio of their powers, so the loud
 * frames, where cancelling matters, weigh most (the suppressor silencing the quiet ones between
 * words says nothing of the filter).
 */
function erleOf(frames: readonly Powers[]): number {
  let mic = 0;
  let out = 0;
  for (const frame of frames) {
    mic += frame.mic;
    out += frame.out;
  }
  return 10 * Math.log10((mic + 1) / (out + 1));
}

function lossOf(loss: { mic: number; out: number }): number {
  return 10 * Math.log10((loss.mic + 1) / (loss.out + 1));
}

function keepLast(values: Powers[], value: Powers): void {
  values.push(value);
  if (values.length > RECHECK_FRAMES) values.shift();
}
