import { MAX_CHUNK_MS } from './long-audio.js';
import { MonologueCuts } from './monologue-cuts.js';
import { PauseJudge } from './pause-judge.js';
import {
  OUTLASTS_ECHO_MS,
  type FrameContext,
  type ScoredFrame,
  type SegmenterConfig,
  type SegmenterEvent,
  type Utterance,
} from './speech-events.js';

/**
 * Frames in, utterances out: hysteresis on the VAD probability, pre-roll kept from before
 * the onset, blips dropped, and monologues longer than the service's 30 s cut at their
 * quietest point. Pure: no I/O, no timers; time is counted in samples.
 */
export class Segmenter {
  private readonly maxUtteranceMs: number;
  private readonly trailingSilenceMs: number;
  private readonly cuts: MonologueCuts;
  private preRoll: Int16Array[] = [];
  private preRollSamples = 0;
  /** The frames just before now that scored as speech but were under the raised threshold while hark spoke. */
  private leadInSamples = 0;
  private inSpeech = false;
  private buffer: Int16Array[] = [];
  private bufferSamples = 0;
  private bufferStartSample = 0;
  private onsetSample = 0;
  private onsetAt = 0;
  private lastVoicedAt = 0;
  private voicedSamples = 0;
  /** Voiced frames of this stretch that may hold hark's echo (see ScoredFrame.doubtful): not in `voicedSamples`. */
  private doubtfulSamples = 0;
  /** Voiced frames neither doubtful nor faint that scored as speech starts (see OUTLASTS_ECHO_MS). */
  private clearSamples = 0;
  /** The same, heard after the stretch's first doubtful frame. */
  private clearAfterDoubtfulSamples = 0;
  private silenceRunSamples = 0;
  private readonly pauseJudge: PauseJudge;
  private utteranceId = 0;
  private overlapped = false;
  private tentativeOffered = false;
  private part = 0;
  private totalSamples = 0;

  constructor(private readonly config: SegmenterConfig) {
    this.maxUtteranceMs = config.maxUtteranceMs ?? MAX_CHUNK_MS;
    this.trailingSilenceMs = config.trailingSilenceMs ?? 200;
    this.cuts = new MonologueCuts({
      sampleRateHz: config.sampleRateHz,
      maxUtteranceMs: this.maxUtteranceMs,
      minCutPauseMs: config.minCutPauseMs ?? 200,
      minPartSpeechMs: config.minPartSpeechMs ?? 1000,
    });
    this.pauseJudge = new PauseJudge(config);
  }

  push(frame: ScoredFrame, context: FrameContext = { speaking: false, listening: true }): SegmenterEvent[] {
    const frameStart = this.totalSamples;
    this.totalSamples += frame.samples.length;
    const betweenWords = !this.inSpeech || this.silenceRunSamples > 0;
    const level = this.pauseJudge.hear(frame.samples, betweenWords && !context.speaking);
    if (!context.listening) {
      this.reset();
      return [];
    }
    if (!this.inSpeech) {
      const threshold = context.speaking ? this.config.speakingStartThreshold : this.config.startThreshold;
      if (frame.probability < threshold) {
        this.keepPreRoll(frame.samples);
        this.noteLeadIn(frame);
        return [];
      }
      this.startSpeech(frame.samples, frameStart, frame);
      this.pauseJudge.begin(level);
      this.onsetAt = frame.capturedAt - this.ms(frame.samples.length);
      this.lastVoicedAt = frame.capturedAt;
      this.overlapped = context.speaking;
      return [this.speechEvent()];
    }
    this.overlapped ||= context.speaking;
    this.buffer.push(frame.samples);
    this.bufferSamples += frame.samples.length;
    const events: SegmenterEvent[] = [];
    const voicing = this.pauseJudge.judge(frame, level, context, this.silenceRunSamples > 0);
    if (voicing.type === 'speech') {
      this.notePause(voicing.heldSamples);
      if (this.isClear(frame)) {
        this.clearSamples += frame.samples.length;
        if (this.doubtfulSamples > 0) this.clearAfterDoubtfulSamples += frame.samples.length;
      }
      this.voicedSamples += voicing.voicedSamples;
      this.doubtfulSamples += voicing.doubtfulSamples;
      this.lastVoicedAt = frame.capturedAt;
      this.tentativeOffered = false;
      this.silenceRunSamples = 0;
      events.push(this.speechEvent());
    } else {
      this.silenceRunSamples += frame.samples.length;
      const silentMs = this.ms(this.silenceRunSamples);
      const endpoint = context.endpoint?.utteranceId === this.utteranceId ? context.endpoint.silenceMs : undefined;
      // A burst held inside the pause may be a word beginning: neither end nor guess on it.
      const holding = voicing.type === 'held';
      if (!holding && silentMs >= (endpoint ?? this.config.endSilenceMs)) {
        events.push(this.endSpeech());
        return events;
      }
      if (!holding && this.offersTentative(silentMs)) events.push({ type: 'tentative', utterance: this.soFar() });
      events.push({
        type: 'silence',
        id: this.utteranceId,
        silentMs: this.ms(this.silenceRunSamples),
        atMs: this.ms(this.totalSamples),
      });
    }
    if (this.ms(this.bufferSamples) >= this.maxUtteranceMs) events.push(this.cutLongSpeech());
    return events;
  }

  /** Once per pause, far enough in, for speech long enough to keep, in a first part (a monologue's later parts are not guessed). */
  private offersTentative(silentMs: number): boolean {
    const after = this.config.speculateAfterMs;
    if (after === undefined || this.tentativeOffered || silentMs < after || this.part > 0) return false;
    if (this.ms(this.userSamples()) < this.config.minSpeechMs) return false;
    this.tentativeOffered = true;
    return true;
  }

  /** The stretch's voiced time that is the user's: its doubtful part too, once speech clear of it followed. */
  private userSamples(): number {
    const outlasted = this.ms(this.clearAfterDoubtfulSamples) >= OUTLASTS_ECHO_MS;
    return this.voicedSamples + (outlasted ? this.doubtfulSamples : 0);
  }

  /** Input ended: speech in progress ends here too. */
  flush(): SegmenterEvent[] {
    return this.inSpeech ? [this.endSpeech()] : [];
  }

  reset(): void {
    this.inSpeech = false;
    this.buffer = [];
    this.bufferSamples = 0;
    this.preRoll = [];
    this.preRollSamples = 0;
    this.leadInSamples = 0;
  }

  private startSpeech(samples: Int16Array, frameStart: number, { doubtful, faint }: ScoredFrame): void {
    this.inSpeech = true;
    this.utteranceId++;
    this.part = 0;
    this.buffer = [...this.preRoll, samples];
    this.bufferSamples = this.preRollSamples + samples.length;
    this.bufferStartSample = frameStart - this.preRollSamples;
    this.onsetSample = frameStart;
    this.voicedSamples = doubtful || faint ? 0 : samples.length + Math.min(this.leadInSamples, this.preRollSamples);
    this.doubtfulSamples = doubtful ? samples.length : 0;
    this.clearSamples = doubtful || faint ? 0 : samples.length;
    this.clearAfterDoubtfulSamples = 0;
    this.leadInSamples = 0;
    this.silenceRunSamples = 0;
    this.cuts.clear();
    this.preRoll = [];
    this.preRollSamples = 0;
  }

  /** The speech so far with a little of the silence after it: what the utterance would be if it ended now. */
  private soFar(): Utterance {
    const all = concat(this.buffer, this.bufferSamples);
    return this.utterance(all.slice(0, this.speechEnd(all)), true);
  }

  private speechEnd(all: Int16Array): number {
    const keepSilence = Math.min(this.silenceRunSamples, this.samples(this.trailingSilenceMs));
    return all.length - this.silenceRunSamples + keepSilence;
  }

  private endSpeech(): SegmenterEvent {
    this.inSpeech = false;
    const id = this.utteranceId;
    const onsetMs = this.ms(this.onsetSample);
    const all = concat(this.buffer, this.bufferSamples);
    const end = this.speechEnd(all);
    // What followed the speech is the pre-roll of whatever comes next.
    this.preRoll = [];
    this.preRollSamples = 0;
    this.keepPreRoll(all.subarray(end));
    this.buffer = [];
    this.bufferSamples = 0;
    const voicedMs = this.ms(this.userSamples());
    if (voicedMs < this.config.minSpeechMs && this.part === 0) return { type: 'discarded', id, onsetMs, voicedMs };
    return { type: 'utterance', utterance: this.utterance(all.slice(0, end), true) };
  }

  /** A silence run just ended; one long enough is a place a monologue may be cut. */
  private notePause(heldSamples: number): void {
    const startSample = this.bufferSamples - this.frameSamplesOfLast() - this.silenceRunSamples;
    this.cuts.notePause(startSample, this.silenceRunSamples - heldSamples, this.voicedSamples);
  }

  private frameSamplesOfLast(): number {
    return this.buffer.at(-1)?.length ?? 0;
  }

  /** A monologue at the service's 30 s limit is cut (MonologueCuts says where); the rest starts the next part. */
  private cutLongSpeech(): SegmenterEvent {
    const all = concat(this.buffer, this.bufferSamples);
    const cut = this.cuts.cut(all, this.voicedSamples);
    const event: SegmenterEvent = { type: 'utterance', utterance: this.utterance(all.slice(0, cut), false) };
    const rest = all.slice(cut);
    this.buffer = [rest];
    this.bufferSamples = rest.length;
    this.bufferStartSample += cut;
    this.part++;
    return event;
  }

  private utterance(samples: Int16Array, final: boolean): Utterance {
    return {
      id: this.utteranceId,
      part: this.part,
      final,
      samples,
      sampleRateHz: this.config.sampleRateHz,
      onsetMs: this.ms(this.onsetSample),
      endMs: this.ms(this.bufferStartSample + samples.length),
      onsetAt: this.onsetAt,
      speechEndedAt: this.lastVoicedAt,
      overlapped: this.overlapped,
    };
  }

  private speechEvent(): SegmenterEvent {
    return {
      type: 'speech',
      id: this.utteranceId,
      onsetMs: this.ms(this.onsetSample),
      onsetAt: this.onsetAt,
      durationMs: this.ms(this.voicedSamples),
      doubtfulMs: this.ms(this.doubtfulSamples),
      clearMs: this.ms(this.clearSamples),
      atMs: this.ms(this.totalSamples),
    };
  }

  /**
   * While hark speaks, speech must score higher to start (its own voice left over by the echo
   * canceller must not). A talker whose first syllable is soft reaches that score a syllable
   * late: once they do, the frames just before that scored as speech at the ordinary threshold
   * are their speech too, and count towards how long they have spoken.
   */
  private noteLeadIn(frame: ScoredFrame): void {
    const speech = frame.probability >= this.config.startThreshold && !frame.doubtful && !frame.faint;
    this.leadInSamples = speech ? this.leadInSamples + frame.samples.length : 0;
  }

  /** Speech clear of hark's echo that would start speech (see OUTLASTS_ECHO_MS). */
  private isClear(frame: ScoredFrame): boolean {
    return !frame.doubtful && !frame.faint && frame.probability >= this.config.startThreshold;
  }

  private keepPreRoll(samples: Int16Array): void {
    if (samples.length === 0) return;
    this.preRoll.push(samples);
    this.preRollSamples += samples.length;
    const limit = this.samples(this.config.preRollMs);
    while (this.preRoll.length > 0 && this.preRollSamples - (this.preRoll[0] as Int16Array).length >= limit) {
      this.preRollSamples -= (this.preRoll.shift() as Int16Array).length;
    }
  }

  private ms(samples: number): number {
    return (samples / this.config.sampleRateHz) * 1000;
  }

  private samples(ms: number): number {
    return Math.round((ms / 1000) * this.config.sampleRateHz);
  }
}

function concat(parts: Int16Array[], total: number): Int16Array {
  if (parts.length === 1) return parts[0] as Int16Array;
  const out = new Int16Array(total);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
