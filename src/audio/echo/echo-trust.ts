/**
 * How far the echo canceller's account of a frame can be trusted, frame by frame: whether the
 * echo may be in it at all, whether the filter has converged on the echo path (so what it took
 * out is the echo and what it left is not), and otherwise how loud the echo may be, from what
 * was played and the echo path's measured loss. Pure: it is given powers, it reads no clock.
 */
import { NO_ECHO_DBFS } from '../frames.js';

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
   * What the filter took out of more than half of the last TAKEN_FRAMES frames of hark's words
   * since the player's stream last (re)started, dB, up to TAKEN_CAP_DB; 0 until known, and while
   * most of the last few frames of words came through untouched.
   */
  takenDb: number;
  /**
   * How far below the echo it takes out the filter leaves hark's voice, dB: its echo return loss
   * enhancement on the frames that held nothing but the echo (the median over the last seconds
   * of hark's words, else, before there are enough, smoothed over all of them). Null until
   * converged and measured.
   */
  lossDb: number | null;
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
 * median over the last WORD_LOSS_FRAMES frames of hark's words alone (at least
 * WORD_LOSS_MIN_FRAMES of them). A median, because the user talking over hark for a moment (as
 * loud as the echo, so not told apart by level) pulls a mean of powers down at once, and would
 * make their own words count as hark's.
 */
const POOR_LOSS_DB = 10;
const WORD_LOSS_FRAMES = 120;
const WORD_LOSS_MIN_FRAMES = 30;

/** The frames a recheck is judged on hold words when what was played in them is at most this far below its mean power (6 dB). */
const WORDS_BELOW_MEAN = 4;
/** Smoothing of the echo path's loss per frame while something plays (about half a second), and the frames it needs first. */
const LOSS_SMOOTHING = 0.03;
const LOSS_MIN_FRAMES = 30;
/**
 * A frame this much louder than the echo predicted for it holds more than the echo (the user
 * talking over hark, or an echo path grown louder): it moves the measured loss this many times
 * more slowly. Otherwise the user's first words would make the echo seem as loud as the user,
 * and the rest of what they say would count as hark's own voice. An echo path grown louder is
 * learned all the same, in a few seconds; meanwhile its echo can pause the reply, which stops
 * the echo, but never confirm an interruption.
 */
const BEYOND_ECHO = 4;
const BEYOND_ECHO_SLOWER = 10;
/**
 * Under this, next to nothing of what hark played is heard at the microphone lately: the delay
 * estimator's correlation at the tracked delay (see DelayEstimator.coherence). In the room bench
 * it was 0.01-0.03 (median) with hark's voice 60 dB under the user's, below the room's noise, and
 * 0.28-0.34 with it as loud as the user, whether they talked over it or not. There a frame far
 * over the echo predicted is someone else, and says nothing of the echo path's loudness: learnt
 * from, the user's words made their next words seem hark's own voice (the echo predicted stood
 * at -27 to -41 dBFS where hark's echo was under -80 and the room's noise at -70).
 */
const ECHO_HEARD_COHERENCE = 0.15;
/** Reverberation after the direct sound that the prediction covers, ms (20 dB down in a room of RT60 300 ms). */
const REVERB_MS = 100;
/**
 * A converged filter takes 15 dB or more out of hark's words. One aligned to an echo path that
 * has since shifted (the sound server ran dry for a moment and plays on later, a player fell
 * behind) takes out next to nothing, or adds its guess of hark's voice where the voice no longer
 * is, and goes on doing so until the delay is measured again, half a second or more. When it
 * left over LITTLE_TAKEN of the microphone's power (took out less than 1 dB) on MISFITS of
 * the last MISFIT_FRAMES frames of hark's words (the user not louder than the echo), it is not
 * trusted again until it cancels well again. In the room bench's first room, with the user
 * talking over hark as loud as its echo, that happened on 2 of 368 such frames while they spoke.
 */
const LITTLE_TAKEN = 10 ** (-1 / 10);
const MISFITS = 4;
const MISFIT_FRAMES = 6;
/**
 * What a filter not (or no longer) trusted is known to take out of hark's words: the lower
 * median per frame over the last TAKEN_FRAMES frames of words of the player's stream (a talker
 * over hark for fewer frames than half does not lower it), up to TAKEN_CAP_DB. Through a real
 * sound server under load the filter took 3-10 dB out of hark's voice for whole replies without
 * ever being trusted.
 */
const TAKEN_FRAMES = 16;
const TAKEN_CAP_DB = 6;
/** Reference frames quieter than this mean power (about -70 dBFS) tell nothing about the echo path, and echo none. */
export const REFERENCE_FLOOR = 32768 * 32768 * 1e-7;

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
  /** Mean power of the microphone and of the reference while something plays, smoothed: their ratio is the echo path's loss. */
  private path = { mic: 0, reference: 0, frames: 0 };
  /** Mean power of the microphone and of what the filter left, smoothed over the frames that held only the echo. */
  private echoOnly = { mic: 0, out: 0, frames: 0 };
  /** How much the filter took out of each of the last frames of hark's words alone, dB, oldest first. */
  private readonly wordLosses: number[] = [];
  /** Their median, kept as they change (it is read on every frame); null while there are too few. */
  private wordLoss: number | null = null;
  /** The same losses, for the last TAKEN_FRAMES frames of words of the player's stream, and their lower median (see TAKEN_FRAMES). */
  private readonly streamLosses: number[] = [];
  private streamLoss = 0;
  /** Whether the filter took next to nothing out of each of the last frames of hark's words (newest last). */
  private readonly misfits: boolean[] = [];
  /** Power of the reference in the last frames (newest last): what echoes into the frame being judged. */
  private readonly recent: number[] = [];

  constructor(private readonly options: EchoTrustOptions) {}

  /** A frame in which nothing played can echo. */
  idle(): EchoVerdict {
    this.idleFrames++;
    this.remember(0);
    return { possible: false, trusted: this.trusted(), predictedDbfs: NO_ECHO_DBFS, lossDb: this.lossDb(), takenDb: 0 };
  }

  /**
   * A frame the filter cancelled: mean powers of the microphone, of the reference given to the
   * filter and of what it left, its echo return loss enhancement so far, and how much of the
   * microphone's sound lately is the reference at the tracked delay (null while untracked).
   */
  cancelled(
    micPower: number,
    referencePower: number,
    outPower: number,
    erleDb: number | null,
    coherence: number | null = null,
  ): EchoVerdict {
    // What the filter did before the pause says nothing of how it cancels now.
    if (this.idleFrames > 0) this.streamRestarted();
    this.idleFrames = 0;
    this.remember(referencePower);
    if (referencePower >= REFERENCE_FLOOR) {
      this.trained++;
      const beyond = this.beyondEcho(micPower);
      if (!beyond) {
        this.learnLoss(micPower, outPower);
        if (referencePower >= this.path.reference / WORDS_BELOW_MEAN) {
          this.learnWordLoss(micPower, outPower);
          this.noteFit(micPower, outPower);
        }
      }
      // Before the filter first converges, someone far louder than the echo (the suppressor
      // silencing their first words) says nothing of how well it cancels the echo.
      if (this.converged || !beyond) keepLast(this.lately, { mic: micPower, out: outPower, reference: referencePower });
      this.learnPath(micPower, referencePower, beyond, coherence);
    }
    this.converged ||= this.trained >= CONVERGED_MIN_FRAMES && (erleDb ?? 0) >= CONVERGED_ERLE_DB && this.cancelsWell();
    if (this.rechecking && this.cancelsWell() && this.heldWords() && !this.cancelsPoorly()) this.rechecking = false;
    return {
      possible: true,
      trusted: this.trusted(),
      predictedDbfs: this.predictedDbfs(),
      lossDb: this.lossDb(),
      takenDb: this.takenDb(),
    };
  }

  /**
   * The player started a new stream (a reply resumed, or the next sentence after it ran dry),
   * which may sound with another latency: the filter is trusted again only once it cancels the
   * new stream as a converged one does.
   */
  streamRestarted(): void {
    this.lately.length = 0;
    this.misfits.length = 0;
    this.forgetStreamLosses();
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
    this.wordLosses.length = 0;
    this.wordLoss = null;
    this.misfits.length = 0;
    this.forgetStreamLosses();
  }

  /** Everything is forgotten, the echo path's loss too (another device). */
  reset(): void {
    this.restart();
    this.path = { mic: 0, reference: 0, frames: 0 };
    this.echoOnly = { mic: 0, out: 0, frames: 0 };
    this.recent.length = 0;
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
    return mean >= this.path.reference / WORDS_BELOW_MEAN;
  }

  /** Over the last half second or so of hark's voice alone, the filter took out less than POOR_LOSS_DB (smoothed powers). */
  private cancelsPoorly(): boolean {
    const loss = this.echoOnly;
    return loss.frames >= LOSS_MIN_FRAMES && lossOf(loss) < POOR_LOSS_DB;
  }

  /** Most of the last seconds of hark's words alone, the filter took out less than POOR_LOSS_DB. */
  private wordsCancelledPoorly(): boolean {
    return this.wordLoss !== null && this.wordLoss < POOR_LOSS_DB;
  }

  /** A frame of hark's words alone: a filter that took next to nothing out of most of the last few no longer fits the echo path. */
  private noteFit(micPower: number, outPower: number): void {
    const misfits = this.misfits;
    misfits.push(outPower > LITTLE_TAKEN * micPower);
    if (misfits.length > MISFIT_FRAMES) misfits.shift();
    if (this.converged && !this.rechecking && misfits.filter(Boolean).length >= MISFITS) this.streamRestarted();
  }

  private learnWordLoss(micPower: number, outPower: number): void {
    const losses = this.wordLosses;
    const loss = 10 * Math.log10((micPower + 1) / (outPower + 1));
    const stream = this.streamLosses;
    stream.push(loss);
    if (stream.length > TAKEN_FRAMES) stream.shift();
    this.streamLoss =
      stream.length < TAKEN_FRAMES ? 0 : ([...stream].sort((a, b) => a - b)[TAKEN_FRAMES / 2 - 1] as number);
    losses.push(loss);
    if (losses.length > WORD_LOSS_FRAMES) losses.shift();
    const sorted = losses.length < WORD_LOSS_MIN_FRAMES ? [] : [...losses].sort((a, b) => a - b);
    this.wordLoss = sorted[Math.floor(sorted.length / 2)] ?? null;
  }

  private trusted(): boolean {
    return this.converged && !this.rechecking && !this.wordsCancelledPoorly();
  }

  /** The loudness of the echo path: the microphone's power over the reference's (the user's speech only makes it seem louder). */
  private learnPath(micPower: number, referencePower: number, beyondEcho: boolean, coherence: number | null): void {
    // Far over the echo while hark's voice is not heard at all: someone else, nothing of the path.
    if (beyondEcho && coherence !== null && coherence < ECHO_HEARD_COHERENCE) return;
    const path = this.path;
    const a = path.frames === 0 ? 1 : LOSS_SMOOTHING / (beyondEcho ? BEYOND_ECHO_SLOWER : 1);
    path.mic += a * (micPower - path.mic);
    path.reference += a * (referencePower - path.reference);
    path.frames++;
  }

  /** The frame holds more than the echo predicted for it: someone else is heard too. */
  private beyondEcho(micPower: number): boolean {
    const predicted = this.predictedPower();
    return predicted !== null && micPower > BEYOND_ECHO * predicted;
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
    return this.wordLoss ?? (loss.frames < LOSS_MIN_FRAMES ? null : lossOf(loss));
  }

  private remember(referencePower: number): void {
    this.recent.push(referencePower);
    const keep = Math.ceil((this.options.leadMs + REVERB_MS) / this.options.frameMs) + 1;
    if (this.recent.length > keep) this.recent.shift();
  }

  /** The loudest the echo may be in the frame being judged, as mean power; null before the path's loss is known. */
  private predictedPower(): number | null {
    const path = this.path;
    const loudest = Math.max(...this.recent);
    if (loudest < REFERENCE_FLOOR) return 0;
    if (path.frames < LOSS_MIN_FRAMES || path.reference <= 0) return null;
    return (loudest * path.mic) / path.reference;
  }

  private predictedDbfs(): number | null {
    const predicted = this.predictedPower();
    return predicted === null ? null : Math.max(NO_ECHO_DBFS, 10 * Math.log10((predicted + 1e-9) / (32768 * 32768)));
  }

  /** See EchoVerdict.takenDb. */
  private takenDb(): number {
    const fits = this.misfits.filter(Boolean).length < MISFITS;
    return fits ? Math.max(0, Math.min(this.streamLoss, TAKEN_CAP_DB)) : 0;
  }

  private forgetStreamLosses(): void {
    this.streamLosses.length = 0;
    this.streamLoss = 0;
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
