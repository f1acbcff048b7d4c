/**
 * The simulated room's hardware, for the room loop: a virtual clock that the loop advances frame
 * by frame, a player whose device output is kept on that clock (what actually sounded, not what
 * hark believes sounded), and the user's side of the room (labelled clips placed in time).
 */
import { VirtualAction, VirtualTimeScheduler } from 'rxjs';
import { samplesOf } from '../../dist/audio/pcm.js';
import { ClockedPlayer } from '../../dist/audio/player.js';

/** Virtual time in ms: `advanceTo` runs every action due up to then, each at its own time. */
export class VirtualClock extends VirtualTimeScheduler {
  constructor() {
    super(VirtualAction, 0);
  }

  advanceTo(ms: number): void {
    this.maxFrames = ms;
    this.flush();
    this.frame = Math.max(this.frame, ms);
  }
}

/** What hark's player was given, for telling which words were sounding when. */
export interface Tag {
  text: string;
  /** Samples of the sentence before this chunk, and in the whole sentence. */
  offset: number;
  total: number;
}

/** Half-width of the 24 → 16 kHz resampler's kernel, in samples at 48 kHz (the common multiple) divided by 3. */
const HALF_TAPS = 16;
const CUTOFF = 0.92;
/** h(m) for m in [-3W, 3W] on the 48 kHz grid: lowpass at 8 kHz, gain 2 (the zeros of up-sampling by 2). */
const KERNEL = Float64Array.from({ length: 6 * HALF_TAPS + 1 }, (_, i) => {
  const m = i - 3 * HALF_TAPS;
  const x = (CUTOFF * m) / 3;
  const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
  return (2 / 3) * CUTOFF * sinc * (0.5 + 0.5 * Math.cos((Math.PI * m) / (3 * HALF_TAPS)));
});

/**
 * The playback device: 24 kHz audio placed at the instant it starts to sound (after whatever is
 * still queued), cut when hark stops or pauses, read back at 16 kHz (band-limited, as a DAC and
 * the microphone's converter would) for any stretch of time.
 */
export class DeviceTimeline {
  private samples = new Int16Array(24000 * 60);
  private end = 0;

  append(pcm: Int16Array, nowMs: number): void {
    const at = Math.max(this.end, Math.round(nowMs * 24));
    if (at + pcm.length > this.samples.length) {
      const grown = new Int16Array(Math.max(at + pcm.length, this.samples.length * 2));
      grown.set(this.samples.subarray(0, this.end));
      this.samples = grown;
    }
    this.samples.set(pcm, at);
    this.end = at + pcm.length;
  }

  /** Nothing sounds from `nowMs` on. */
  cut(nowMs: number): void {
    const at = Math.round(nowMs * 24);
    if (at >= this.end) return;
    this.samples.fill(0, Math.max(0, at), this.end);
    this.end = Math.max(0, at);
  }

  /** `n` samples at 16 kHz from sample `k0` (at 16 kHz, counted from time 0). */
  render(k0: number, n: number): Int16Array {
    const out = new Int16Array(n);
    const x = this.samples;
    for (let k = k0; k < k0 + n; k++) {
      const centre = 1.5 * k;
      if (centre - HALF_TAPS * 1.5 > this.end) continue;
      let sum = 0;
      const first = Math.max(0, Math.ceil((3 * k - 3 * HALF_TAPS) / 2));
      const last = Math.min(this.end - 1, Math.floor((3 * k + 3 * HALF_TAPS) / 2));
      for (let i = first; i <= last; i++) sum += (x[i] as number) * (KERNEL[3 * k - 2 * i + 3 * HALF_TAPS] as number);
      out[k - k0] = Math.max(-32768, Math.min(32767, Math.round(sum)));
    }
    return out;
  }
}

/** hark's player in the room: the device output is kept on the virtual clock, and every pause, resume and stop dated. */
export class RoomPlayer extends ClockedPlayer {
  readonly device = new DeviceTimeline();
  readonly actions: { type: 'pause' | 'resume' | 'stop'; at: number }[] = [];
  /** Chunks the synthesizer made, by identity, so what sounds can be named. */
  readonly tags = new Map<Buffer, Tag>();
  private readonly positions: { start: number; end: number; tag: Tag | undefined }[] = [];

  override write(pcm: Buffer): number {
    const start = this.writtenSamples();
    const end = super.write(pcm);
    if (pcm.length > 0) this.positions.push({ start, end, tag: this.tags.get(pcm) });
    if (this.positions.length > 256) this.positions.splice(0, 128);
    return end;
  }

  /** The sentence sounding now and how far into it (0..1), if any. */
  sounding(): { text: string; fraction: number } | undefined {
    if (this.paused || this.queuedMs() <= 0) return undefined;
    const at = this.playedSamples();
    for (let i = this.positions.length - 1; i >= 0; i--) {
      const { start, end, tag } = this.positions[i] as { start: number; end: number; tag: Tag | undefined };
      if (at < start || at >= end) continue;
      return tag ? { text: tag.text, fraction: (tag.offset + at - start) / tag.total } : undefined;
    }
    return undefined;
  }

  protected output(pcm: Buffer): void {
    this.device.append(samplesOf(pcm), this.time.now());
  }

  protected discard(): void {
    this.device.cut(this.time.now());
    this.actions.push({ type: 'stop', at: this.time.now() });
  }

  protected override hold(): void {
    this.device.cut(this.time.now());
    this.actions.push({ type: 'pause', at: this.time.now() });
  }

  protected override release(unplayed: Buffer): void {
    this.actions.push({ type: 'resume', at: this.time.now() });
    super.release(unplayed);
  }

  async close(): Promise<void> {}
}

/** A labelled span of the user's side of the room, in ms of room time. */
export interface TruthSpan {
  startMs: number;
  endMs: number;
  /** Speech (with the words said in it) or another sound (cough, click, ...). */
  kind: 'speech' | 'sound';
  what: string;
  words: string[];
  /** Which placement it came from. */
  clip: number;
}

/** What the user does in the room: clips placed in time, with their labels moved along. */
export class UserSide {
  readonly spans: TruthSpan[] = [];
  private readonly placed: { start: number; samples: Int16Array }[] = [];
  private clips = 0;

  /**
   * Places `samples` to start at 16 kHz sample `start`; `speech` spans (ms into the clip) carry
   * `text`, its words spread over them by duration; `sounds` are the rest. Returns the clip's number.
   */
  place(
    samples: Int16Array,
    start: number,
    speech: { startMs: number; endMs: number }[],
    text: string,
    sounds: { startMs: number; endMs: number; what: string }[] = [],
  ): number {
    const clip = ++this.clips;
    this.placed.push({ start, samples });
    const atMs = start / 16;
    const words = text.split(/\s+/).filter(Boolean);
    const total = speech.reduce((sum, s) => sum + s.endMs - s.startMs, 0);
    let before = 0;
    for (const s of speech) {
      const from = Math.round((before / total) * words.length);
      before += s.endMs - s.startMs;
      const to = Math.round((before / total) * words.length);
      this.spans.push({
        startMs: atMs + s.startMs,
        endMs: atMs + s.endMs,
        kind: 'speech',
        what: text,
        words: words.slice(from, to),
        clip,
      });
    }
    for (const s of sounds) {
      this.spans.push({
        startMs: atMs + s.startMs,
        endMs: atMs + s.endMs,
        kind: 'sound',
        what: s.what,
        words: [],
        clip,
      });
    }
    return clip;
  }

  /** What the user side sounds like for `n` samples from `k0`, or undefined for nothing. */
  read(k0: number, n: number): Int16Array | undefined {
    let out: Int16Array | undefined;
    for (let p = this.placed.length - 1; p >= 0; p--) {
      const { start, samples } = this.placed[p] as { start: number; samples: Int16Array };
      if (start + samples.length <= k0 - 16000 * 60) {
        this.placed.splice(p, 1);
        continue;
      }
      const from = Math.max(k0, start);
      const to = Math.min(k0 + n, start + samples.length);
      if (to <= from) continue;
      out ??= new Int16Array(n);
      for (let k = from; k < to; k++) {
        out[k - k0] = Math.max(-32768, Math.min(32767, (out[k - k0] as number) + (samples[k - start] as number)));
      }
    }
    return out;
  }

  /** Labelled speech overlapping [fromMs, toMs). */
  speechIn(fromMs: number, toMs: number): TruthSpan[] {
    return this.spans.filter((s) => s.kind === 'speech' && s.startMs < toMs && s.endMs > fromMs);
  }
}
