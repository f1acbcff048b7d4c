import { quietestCut } from './long-audio.js';

/** Where a monologue without a real pause is cut: the quietest point of this last stretch before the limit. */
const FALLBACK_WINDOW_MS = 5000;

/** A pause inside the speech being collected: where it starts in the buffer, and the speech before it. */
interface Pause {
  startSample: number;
  samples: number;
  voicedBefore: number;
}

export interface MonologueCutsConfig {
  sampleRateHz: number;
  /** The longest utterance the service takes, ms: a monologue is cut into parts no longer. */
  maxUtteranceMs: number;
  /** The shortest pause a monologue may be cut in, ms. */
  minCutPauseMs: number;
  /** The least speech a cut leaves for the next part, ms. */
  minPartSpeechMs: number;
}

/**
 * Where a monologue at the service's 30 s limit is cut: in the middle of its latest pause that
 * leaves at least `minPartSpeechMs` of speech for the next part; without such a pause, at the
 * quietest point of the last few seconds before that. Pure: no I/O; time is counted in samples
 * of the speech being collected.
 */
export class MonologueCuts {
  private pauses: Pause[] = [];

  constructor(private readonly config: MonologueCutsConfig) {}

  /** A silence run of `samples` from `startSample`, after `voicedBefore` samples of speech: a place to cut when long enough. */
  notePause(startSample: number, samples: number, voicedBefore: number): void {
    if (this.ms(samples) < this.config.minCutPauseMs) return;
    this.pauses.push({ startSample, samples, voicedBefore });
  }

  /** Where to cut `all` (`voicedSamples` of it voiced); the pauses after the cut are kept, counted from it. */
  cut(all: Int16Array, voicedSamples: number): number {
    const { maxUtteranceMs, minPartSpeechMs, sampleRateHz } = this.config;
    const earliest = this.samples(maxUtteranceMs / 2);
    const keep = this.samples(minPartSpeechMs);
    const pause = this.pauses
      .filter((p) => p.startSample + p.samples / 2 >= earliest && voicedSamples - p.voicedBefore >= keep)
      .at(-1);
    const latest = Math.max(maxUtteranceMs / 2, this.ms(all.length) - minPartSpeechMs);
    const cut = pause
      ? pause.startSample + Math.floor(pause.samples / 2)
      : quietestCut(all, sampleRateHz, Math.max(maxUtteranceMs / 2, latest - FALLBACK_WINDOW_MS), latest);
    this.pauses = this.pauses
      .filter((p) => p.startSample >= cut)
      .map((p) => ({ ...p, startSample: p.startSample - cut }));
    return cut;
  }

  /** New speech: no pause in it yet. */
  clear(): void {
    this.pauses = [];
  }

  private ms(samples: number): number {
    return (samples / this.config.sampleRateHz) * 1000;
  }

  private samples(ms: number): number {
    return Math.round((ms / 1000) * this.config.sampleRateHz);
  }
}
