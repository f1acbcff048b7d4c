import { dbfs, rms } from '../audio/pcm.js';
import { NoiseFloor } from './noise-floor.js';
import type { FrameContext, ScoredFrame, SegmenterConfig } from './speech-events.js';

/** Frames at or below this level are digital silence (a file's padding, a muted device), not a room. */
const DIGITAL_SILENCE_DBFS = -100;

/**
 * The level tells a pause only for a talker whose loudest is this far over the room's noise floor:
 * a soft syllable of a quiet or distant talker lies near the floor, and there the model alone
 * decides.
 */
const CLEAR_OF_ROOM_DB = 35;

/** A frame's level, and that of its quieter half: a frame holding a gap between two sounds is quiet there. */
export interface FrameLevel {
  db: number;
  quieterHalfDb: number;
}

/** What a frame inside speech is. */
export type Voicing =
  /**
   * Speech going on, or speech again after a pause: `voicedSamples` of it count as the user's,
   * `doubtfulSamples` may be hark's echo (held frames included in both; faint frames in neither).
   */
  | { type: 'speech'; voicedSamples: number; doubtfulSamples: number; heldSamples: number }
  /** Sound inside a pause that is not yet speech again: a click, or a word's first frames. */
  | { type: 'held' }
  | { type: 'pause' };

/**
 * Is a frame inside speech still speech, or a pause? Inside speech the VAD's lower threshold keeps
 * it going; once a pause has begun, only frames that would start speech end it (as Silero's own
 * reference does), so a breath hovering between the two does not. But Silero's score lags the
 * sound: after the last word its state goes on scoring lip clicks high for a fifth of a second.
 * So, for a talker well over the room's noise and while hark is not speaking, a frame at the
 * room's noise floor begins a pause whatever the model says, and inside a pause that has reached
 * the floor a burst must last `minResumeMs` to be speech again: a click lasts 30–70 ms, a word
 * longer. Only frames that are not perhaps hark's own echo count as the user's speech.
 */
export class PauseJudge {
  private readonly floor = new NoiseFloor();
  private readonly quietMarginDb: number;
  private readonly minResumeMs: number;
  /** The loudest voiced frame of the speech being judged. */
  private peakDb = -Infinity;
  private heldSamples = 0;
  private heldVoicedSamples = 0;
  private heldDoubtfulSamples = 0;
  /** The pause under way has reached the room's floor: sound in it is held until it lasts. */
  private silentPause = false;

  constructor(private readonly config: SegmenterConfig) {
    this.quietMarginDb = config.quietMarginDb ?? 6;
    this.minResumeMs = config.minResumeMs ?? 90;
  }

  /**
   * Every frame's level. The room's floor is learnt only from frames of the room alone: between
   * words (during speech it would creep up towards the voice) and not while hark speaks (what the
   * echo canceller leaves then is its own suppression, far under the room).
   */
  hear(samples: Int16Array, roomAlone: boolean): FrameLevel {
    const half = samples.length >> 1;
    const [first, second] = [rms(samples, 0, half), rms(samples, half)];
    // The whole frame's power is the mean of its halves' (two equal halves of an even frame).
    const level = {
      db: dbfs(Math.sqrt((first * first + second * second) / 2)),
      quieterHalfDb: dbfs(Math.min(first, second)),
    };
    // After digital silence the room is learnt afresh: the device, or the file, may be another.
    if (level.db <= DIGITAL_SILENCE_DBFS) this.floor.reset();
    else if (roomAlone && level.quieterHalfDb > DIGITAL_SILENCE_DBFS) this.floor.update(level.db);
    return level;
  }

  /** Speech starts with this frame. */
  begin(level: FrameLevel): void {
    this.peakDb = level.db;
    this.heldSamples = 0;
    this.heldVoicedSamples = 0;
    this.heldDoubtfulSamples = 0;
    this.silentPause = false;
  }

  judge(frame: ScoredFrame, level: FrameLevel, context: FrameContext, paused: boolean): Voicing {
    const onset = context.speaking ? this.config.speakingStartThreshold : this.config.startThreshold;
    const byLevel = !context.speaking && this.peakDb - this.floor.db >= CLEAR_OF_ROOM_DB;
    const quietDb = level.quieterHalfDb;
    const quiet = byLevel && quietDb > DIGITAL_SILENCE_DBFS && quietDb < this.floor.db + this.quietMarginDb;
    if (quiet || frame.probability < (paused ? onset : this.config.stopThreshold)) {
      this.heldSamples = 0;
      this.heldVoicedSamples = 0;
      this.heldDoubtfulSamples = 0;
      this.silentPause = (paused && this.silentPause) || quiet;
      return { type: 'pause' };
    }
    const heldBefore = this.heldSamples;
    this.heldSamples += frame.samples.length;
    if (frame.doubtful) this.heldDoubtfulSamples += frame.samples.length;
    else if (!frame.faint) this.heldVoicedSamples += frame.samples.length;
    this.peakDb = Math.max(this.peakDb, level.db);
    const lastsMs = (this.heldSamples / this.config.sampleRateHz) * 1000;
    // Only in a pause that went down to the floor: where the model alone found the pause (its
    // score hovering near the thresholds inside speech), a frame over the start threshold resumes.
    if (paused && byLevel && this.silentPause && lastsMs < this.minResumeMs) return { type: 'held' };
    const voicing: Voicing = {
      type: 'speech',
      voicedSamples: this.heldVoicedSamples,
      doubtfulSamples: this.heldDoubtfulSamples,
      heldSamples: heldBefore,
    };
    this.heldSamples = 0;
    this.heldVoicedSamples = 0;
    this.heldDoubtfulSamples = 0;
    this.silentPause = false;
    return voicing;
  }
}
