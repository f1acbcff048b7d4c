/**
 * How much the echo canceller's filter takes out of hark's words, frame by frame (frames of
 * hark's voice alone, the quiet between words left out): over the last seconds, over the
 * player's stream under way, and whether it took next to nothing out of most of the last few.
 * Pure: it is given powers.
 */

/**
 * The median is taken over the last WORD_LOSS_FRAMES frames of words, once there are
 * WORD_LOSS_MIN_FRAMES of them. A median, because the user talking over hark for a moment (as
 * loud as the echo, so not told apart by level) pulls a mean of powers down at once, and would
 * make their own words count as hark's.
 */
const WORD_LOSS_FRAMES = 120;
const WORD_LOSS_MIN_FRAMES = 30;
/**
 * A converged filter takes 15 dB or more out of hark's words. One aligned to an echo path that
 * has since shifted (the sound server ran dry for a moment and plays on later, a player fell
 * behind) takes out next to nothing, or adds its guess of hark's voice where the voice no longer
 * is, and goes on doing so until the delay is measured again, half a second or more. It misfits
 * when it left over LITTLE_TAKEN of the microphone's power (took out less than 1 dB) on MISFITS
 * of the last MISFIT_FRAMES frames of hark's words (the user not louder than the echo). In the
 * room bench's first room, with the user talking over hark as loud as its echo, that happened
 * on 2 of 368 such frames while they spoke.
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

export class WordLosses {
  /** How much the filter took out of each of the last frames of hark's words alone, dB, oldest first. */
  private readonly losses: number[] = [];
  /** Their median, kept as they change (it is read on every frame); null while there are too few. */
  private wordLoss: number | null = null;
  /** The same losses, for the last TAKEN_FRAMES frames of words of the player's stream, and their lower median (see TAKEN_FRAMES). */
  private readonly streamLosses: number[] = [];
  private streamLoss = 0;
  /** Whether the filter took next to nothing out of each of the last frames of hark's words (newest last). */
  private readonly misfits: boolean[] = [];

  /** A frame of hark's words alone: the microphone's mean power, and what the filter left of it. */
  add(micPower: number, outPower: number): void {
    const loss = 10 * Math.log10((micPower + 1) / (outPower + 1));
    const stream = this.streamLosses;
    stream.push(loss);
    if (stream.length > TAKEN_FRAMES) stream.shift();
    this.streamLoss =
      stream.length < TAKEN_FRAMES ? 0 : ([...stream].sort((a, b) => a - b)[TAKEN_FRAMES / 2 - 1] as number);
    const losses = this.losses;
    losses.push(loss);
    if (losses.length > WORD_LOSS_FRAMES) losses.shift();
    const sorted = losses.length < WORD_LOSS_MIN_FRAMES ? [] : [...losses].sort((a, b) => a - b);
    this.wordLoss = sorted[Math.floor(sorted.length / 2)] ?? null;
    const misfits = this.misfits;
    misfits.push(outPower > LITTLE_TAKEN * micPower);
    if (misfits.length > MISFIT_FRAMES) misfits.shift();
  }

  /** What the filter took out of hark's words over the last seconds (their median), dB; null while too few. */
  get median(): number | null {
    return this.wordLoss;
  }

  /** The filter took next to nothing out of most of the last few frames of words: it no longer fits the echo path. */
  misfitting(): boolean {
    return this.misfits.filter(Boolean).length >= MISFITS;
  }

  /** See EchoVerdict.takenDb. */
  takenDb(): number {
    return this.misfitting() ? 0 : Math.max(0, Math.min(this.streamLoss, TAKEN_CAP_DB));
  }

  /** The player started a new stream: what the filter did in the last one says nothing of this one. */
  streamRestarted(): void {
    this.misfits.length = 0;
    this.streamLosses.length = 0;
    this.streamLoss = 0;
  }

  /** The filter starts over: everything it took out before is forgotten. */
  restart(): void {
    this.losses.length = 0;
    this.wordLoss = null;
    this.streamRestarted();
  }
}
