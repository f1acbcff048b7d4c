import type { ReplyEvent, TokenUsage } from '../contract/reply.js';
import { heardText, type PlacedSentence, type Placement } from '../speak/heard.js';
import type { Sentence } from '../speak/sentences.js';
import type { ToolActivity, ToolExchange } from './tool-calls.js';
import type { Interruption, Query, Transcript, Turn, TurnTimings } from './turn.js';

/** Typical speech rate, for guessing the length of a sentence whose audio is still arriving. */
const DEFAULT_MS_PER_CHAR = 65;

/** Where playback is, as the player's clock tells it. */
export interface PlaybackPosition {
  readonly sampleRateHz: number;
  playedSamples(): number;
}

/**
 * Keeps the record of one turn as it happens: when each step first happened, the sentences of
 * the reply, and where each sentence's audio sits on the player's timeline, so that at the end
 * it can say what the user heard. Time comes from the injected clock.
 */
export class TurnRecorder {
  private readonly timings: TurnTimings;
  private readonly sentences: Sentence[] = [];
  private readonly placements = new Map<number, Placement>();
  private usage: TokenUsage | undefined;
  private droppedGuesses: number;
  private readonly tools: ToolExchange[] = [];

  constructor(
    private readonly query: Query,
    private readonly now: () => number,
    /** Replies started for earlier guesses at this utterance and dropped. */
    private readonly droppedReplies = 0,
  ) {
    this.droppedGuesses = query.transcript.droppedGuesses;
    const { transcript } = query;
    this.timings = {
      speechEnd: transcript.speechEndedAt,
      endpointed: transcript.endpointedAt,
      transcriptionRequest: transcript.transcriptionRequestAt,
      transcript: transcript.transcriptAt,
      chatRequest: now(),
    };
  }

  /** The turn may sound now: its utterance ended as guessed (the transcript confirmed), or it never was a guess. */
  confirm(transcript: Transcript): void {
    this.timings.endpointed = transcript.endpointedAt;
    this.droppedGuesses = transcript.droppedGuesses;
  }

  reply(event: ReplyEvent | ToolActivity): void {
    if (event.type === 'text') this.timings.firstToken ??= this.now();
    if (event.type === 'done') this.usage = event.usage;
    if (event.type === 'tool' && event.phase !== 'started') {
      const failed = event.phase === 'failed';
      this.tools.push({
        id: event.callId,
        name: event.name,
        arguments: event.args ?? '{}',
        result: (failed ? event.error : event.result) ?? '',
        isError: failed,
      });
    }
  }

  sentence(sentence: Sentence): void {
    this.timings.firstSentence ??= this.now();
    this.sentences.push(sentence);
  }

  synthesis(sentence: Sentence): void {
    if (sentence.index === 0) this.timings.ttsRequest = this.now();
  }

  audio(): void {
    this.timings.firstAudioByte ??= this.now();
  }

  /** A sentence's audio written to the player; true for the first write of the turn, when hark starts speaking. */
  placed(placement: Placement, playback: PlaybackPosition): boolean {
    this.placements.set(placement.sentence.index, placement);
    if (this.timings.firstWrite !== undefined) return false;
    this.timings.firstWrite = this.now();
    const aheadMs = ((placement.startSample - playback.playedSamples()) / playback.sampleRateHz) * 1000;
    this.timings.firstPlayed = this.timings.firstWrite + Math.max(0, aheadMs);
    return true;
  }

  /** Whether this turn placed audio between `fromSample` and `toSample` (exclusive) on the player's timeline. */
  placedBetween(fromSample: number, toSample: number): boolean {
    for (const p of this.placements.values()) if (p.startSample < toSample && p.endSample > fromSample) return true;
    return false;
  }

  /**
   * The turn as it ended; call before the player drops what was not played. `silentFrom`: the
   * player failed, and nothing from there on the timeline sounded, whatever its clock says.
   */
  finish(
    interrupted: Interruption | false,
    failed: Error | undefined,
    playback: PlaybackPosition,
    stoppedAt: number | undefined,
    silentFrom = Infinity,
  ): Turn {
    const playedSample = Math.min(playback.playedSamples(), silentFrom);
    const first = Math.min(...[...this.placements.values()].map((p) => p.startSample));
    // Audio that never sounded has no time it was first heard.
    const { firstPlayed: _, ...unplayed } = this.timings;
    return {
      query: this.query,
      reply: this.sentences.map((s) => s.text).join(' '),
      heard: heardText(this.timeline(playback.sampleRateHz), playedSample).text,
      interrupted,
      failed,
      usage: this.usage,
      timings: silentFrom <= first ? unplayed : this.timings,
      sentences: this.sentences.length,
      stoppedAt,
      endedAt: this.now(),
      audioMs: this.audioMs(playedSample, playback.sampleRateHz),
      extraRequests: { transcriptions: this.droppedGuesses, replies: this.droppedReplies },
      tools: [...this.tools],
    };
  }

  private audioMs(playedSample: number, sampleRateHz: number): Turn['audioMs'] {
    const toMs = (samples: number): number => Math.round((samples / sampleRateHz) * 1000);
    let written = 0;
    let played = 0;
    for (const p of this.placements.values()) {
      written += p.endSample - p.startSample;
      played += Math.max(0, Math.min(playedSample, p.endSample) - p.startSample);
    }
    return { written: toMs(written), played: toMs(played) };
  }

  /** Sentences on the timeline; one still arriving gets its length estimated from the speech rate so far. */
  private timeline(sampleRateHz: number): PlacedSentence[] {
    const all = [...this.placements.values()].sort((a, b) => a.sentence.index - b.sentence.index);
    const done = all.filter((p) => p.final);
    const chars = done.reduce((sum, p) => sum + p.sentence.text.length, 0);
    const samples = done.reduce((sum, p) => sum + (p.endSample - p.startSample), 0);
    const perChar = chars > 0 && samples > 0 ? samples / chars : (sampleRateHz * DEFAULT_MS_PER_CHAR) / 1000;
    return all.map((p) => ({
      text: p.sentence.text,
      startSample: p.startSample,
      endSample: p.final
        ? p.endSample
        : Math.max(p.endSample, p.startSample + Math.round(p.sentence.text.length * perChar)),
    }));
  }
}
