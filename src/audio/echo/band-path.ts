/**
 * How loud hark's echo may be in each frequency band of a frame, and how much of the frame lies
 * beyond that: what the microphone heard that hark's voice cannot explain. Pure: it is given
 * band powers, it reads no clock.
 *
 * Before the echo canceller has converged, a frame is told from hark's echo by its level alone
 * (see EchoPath), and a user as loud as the echo adds 3 dB to it, under any mark the echo itself
 * stays under. Band by band they differ far more: two voices rarely fill the same bands at the
 * same moment. Offline, with this class and EchoPath, hark's espeak story fed back 8 dB down and
 * 90 ms late (no reverberation, as in the board bench's room), the room's noise at -60 dBFS, and
 * each of the five labelled talk-over clips said over it 1.5 s in: the broadband mark (6 dB over
 * the echo predicted) was crossed on 0-9 % of the talker's frames, first 0.2-2.3 s after the
 * labelled onset or never; this one on 11-30 %, first 12-58 ms after it; frames of the echo alone
 * over it, 4 in 600-740 (none over the broadband mark). With reverberation (RT60 400 ms, its
 * tail as loud as the direct sound): 2-20 %, first 12-642 ms; 3-6 frames of the echo alone.
 */
import { BEYOND_BANDS_DB } from '../frames.js';
import { BAND_COUNT } from './band-powers.js';
import {
  BEYOND_ECHO_SLOWER,
  ECHO_HEARD_COHERENCE,
  LOSS_MIN_FRAMES,
  LOSS_SMOOTHING,
  REFERENCE_FLOOR,
  reachFrames,
} from './echo-path.js';

/** A band's power counts as beyond its echo when over this many times the echo predicted there (6 dB). */
const BAND_MARGIN = 4;
/**
 * The echo predicted in a band dies away no faster than in a room of this reverberation time
 * (60 dB down), ms: in the simulated room (200-500 ms), hark's own reverberation in a band its
 * voice had just left was heard as someone else's.
 */
const REVERBERATION_MS = 600;
/** A band of what was played this far under its loudest band (20 dB) is faint. */
const FAINT_BAND = 0.01;
/** The room's noise in a band follows the quietest the microphone was there, rising at most this fast (dB a second). */
const FLOOR_RISE_DB_PER_S = 3;

export class BandPath {
  private readonly mic = new Float64Array(BAND_COUNT);
  private readonly reference = new Float64Array(BAND_COUNT);
  private frames = 0;
  /** The quietest the microphone was in each band lately, while something played: the room's noise. */
  private readonly floor = new Float64Array(BAND_COUNT).fill(Infinity);
  /** What was played in the last frames (newest last; null: nothing): what echoes into the frame being judged. */
  private readonly recent: (Float64Array | null)[] = [];
  /** The loudest the echo may be in each band of the frame being judged, its reverberation included. */
  private readonly echo = new Float64Array(BAND_COUNT);
  private readonly decay: number;
  /** The most the floor may rise in one frame (a power ratio). */
  private readonly floorRise: number;

  constructor(private readonly options: { frameMs: number; leadMs: number }) {
    this.decay = 10 ** (-(60 * options.frameMs) / REVERBERATION_MS / 10);
    this.floorRise = 10 ** ((FLOOR_RISE_DB_PER_S * options.frameMs) / 1000 / 10);
  }

  /** What was played into the frame being judged (null: nothing). */
  remember(reference: Float64Array | null): void {
    this.recent.push(reference);
    if (this.recent.length > reachFrames(this.options)) this.recent.shift();
    for (let b = 0; b < BAND_COUNT; b++) {
      let loudest = 0;
      for (const frame of this.recent) if (frame) loudest = Math.max(loudest, frame[b] as number);
      const gain = (this.reference[b] as number) > 0 ? (this.mic[b] as number) / (this.reference[b] as number) : 0;
      this.echo[b] = Math.max(loudest * gain, (this.echo[b] as number) * this.decay);
    }
  }

  /**
   * How far the microphone's power beyond the echo predicted band by band lies under the echo
   * predicted, dB (-120: nothing beyond it); null while the path's loss in each band is not
   * known yet, nothing audible was played within reach, or hark's voice is not clearly heard at
   * the delay the reference is read at (`coherence`, see EchoPath.learn): band by band, an echo
   * read at another delay than it arrives (a re-alignment to a wrong delay) is all beyond it.
   */
  beyondDb(mic: Float64Array, coherence: number | null): number | null {
    if (this.frames < LOSS_MIN_FRAMES || coherence === null || coherence < ECHO_HEARD_COHERENCE) return null;
    let played = 0;
    for (const frame of this.recent)
      if (frame)
        played = Math.max(
          played,
          frame.reduce((sum, power) => sum + power, 0),
        );
    let beyond = 0;
    let predicted = 0;
    for (let b = 0; b < BAND_COUNT; b++) {
      const noise = Number.isFinite(this.floor[b]) ? (this.floor[b] as number) : 0;
      const echo = (this.echo[b] as number) + noise;
      predicted += echo;
      beyond += Math.max(0, (mic[b] as number) - BAND_MARGIN * echo);
    }
    if (played < REFERENCE_FLOOR || predicted <= 0) return null;
    return beyond <= 0 ? -120 : Math.max(-120, 10 * Math.log10(beyond / predicted));
  }

  /** A frame heard while something played: the room's noise in each band is the quietest of them lately. */
  hear(mic: Float64Array): void {
    for (let b = 0; b < BAND_COUNT; b++)
      this.floor[b] = Math.min(mic[b] as number, (this.floor[b] as number) * this.floorRise);
  }

  /**
   * Learns the echo path's loss in each band from a frame something audible was played into,
   * while hark's voice is clearly heard at the delay the reference is read at (`coherence`, see
   * EchoPath.learn): learnt from frames read at a delay gone stale, the prediction would be of
   * another sound than the one heard. `beyondDb` is the frame's verdict and `beyondEcho` whether
   * it is over the broadband mark: such a frame teaches its bands slowly, and none where hark's
   * voice was faint: there the path's loss would be learnt from the talker alone, and their next
   * words taken for hark's.
   */
  learn(
    mic: Float64Array,
    reference: Float64Array,
    beyondDb: number | null,
    beyondEcho: boolean,
    coherence: number | null,
  ): void {
    if (coherence === null || coherence < ECHO_HEARD_COHERENCE) return;
    const beyond = beyondEcho || (beyondDb !== null && beyondDb >= BEYOND_BANDS_DB);
    const a = this.frames === 0 ? 1 : LOSS_SMOOTHING / (beyond ? BEYOND_ECHO_SLOWER : 1);
    const audible = beyond ? Math.max(...reference) * FAINT_BAND : 0;
    for (let b = 0; b < BAND_COUNT; b++) {
      if ((reference[b] as number) < audible) continue;
      this.mic[b] = (this.mic[b] as number) + a * ((mic[b] as number) - (this.mic[b] as number));
      this.reference[b] =
        (this.reference[b] as number) + a * ((reference[b] as number) - (this.reference[b] as number));
    }
    this.frames++;
  }

  /** Forgets the path's loss, the noise and what was played (another device). */
  reset(): void {
    this.mic.fill(0);
    this.reference.fill(0);
    this.floor.fill(Infinity);
    this.echo.fill(0);
    this.frames = 0;
    this.recent.length = 0;
  }
}
