import { BlockConvolver } from './convolver.js';

/**
 * A room for hark to hear itself in: what the speaker plays reaches the microphone after a
 * delay that drifts slowly, through a decaying room response, at a level set relative to the
 * user's speech, with noise, mixed with what the user says. Deterministic for a seed.
 * All signals are 16 kHz mono; sample i of every block passed to `hear` is the same instant.
 */
export interface RoomOptions {
  seed: number;
  /** Delay from the speaker playing to the microphone hearing the direct sound, ms (30-300 in hark's tests). */
  delayMs: number;
  /** How far the delay wanders either side of `delayMs`, ms, and over how long one cycle of that takes. */
  driftMs: number;
  driftPeriodMs: number;
  /** Reverberation time (60 dB decay) of the room response, ms. */
  rt60Ms: number;
  /** Direct sound over everything reflected, dB. */
  directToReverbDb: number;
  /** Active level of the user's speech, dBFS: the level the echo and the noise are set against. */
  speechLevelDbfs: number;
  /** Active level of what the player plays (hark's voice), dBFS. */
  playedLevelDbfs: number;
  /** Echo at the microphone relative to the user's speech, dB (-20..+6 in hark's tests). */
  echoDb: number;
  /** The user's speech over the noise, dB. */
  snrDb: number;
  /**
   * Underruns of the sound server, none when absent: about every `everyMs` (at random) the
   * speaker falls silent for `gapMs` and then plays on that much later; at the next one it skips
   * ahead to the old delay again. The echo path shifts at once, as through a real sound server.
   */
  underruns?: { everyMs: number; gapMs: number };
}

export const DEFAULT_ROOM: RoomOptions = {
  seed: 1,
  delayMs: 150,
  driftMs: 5,
  driftPeriodMs: 60_000,
  rt60Ms: 300,
  directToReverbDb: 3,
  speechLevelDbfs: -26,
  playedLevelDbfs: -26,
  echoDb: 0,
  snrDb: 40,
};

const RATE = 16000;
/** Half-width of the fractional-delay kernel (Hann-windowed sinc), samples, and its table's steps per sample. */
const TAPS = 12;
const STEPS = 512;
const KERNEL = Float64Array.from({ length: TAPS * STEPS + 1 }, (_, i) => {
  const d = i / STEPS;
  return (d === 0 ? 1 : Math.sin(Math.PI * d) / (Math.PI * d)) * (0.5 + 0.5 * Math.cos((Math.PI * d) / TAPS));
});

/** What the microphone heard in one block, and its parts (before rounding to 16 bits). */
export interface Heard {
  mic: Int16Array;
  echo: Float64Array;
  noise: Float64Array;
}

export class Room {
  readonly options: RoomOptions;
  /** The room response, unit energy, direct sound first. */
  readonly response: Float64Array;
  private readonly random: () => number;
  private readonly driftPhase: number;
  private echoGain: number;
  private readonly noiseGain: number;
  private readonly history: Float64Array;
  private readonly convolver: BlockConvolver;
  private noiseState = 0;
  private at = 0;
  /** When each underrun happened, ms since the room was made. */
  readonly underrunsAt: number[] = [];
  private readonly underrunRandom: () => number;
  private nextUnderrun = Infinity;
  /** Samples the speaker is behind after an underrun, and the sample its silence lasts until. */
  private behind = 0;
  private silentUntil = 0;

  constructor(options: Partial<RoomOptions> = {}) {
    this.options = { ...DEFAULT_ROOM, ...options };
    const o = this.options;
    this.random = mulberry32(o.seed);
    this.driftPhase = this.random() * 2 * Math.PI;
    this.response = roomResponse(o.rt60Ms, o.directToReverbDb, this.random);
    this.convolver = new BlockConvolver(this.response);
    this.echoGain = echoGainFor(o, o.echoDb);
    this.noiseGain = (32768 * 10 ** ((o.speechLevelDbfs - o.snrDb) / 20)) / NOISE_RMS;
    const gapMs = o.underruns?.gapMs ?? 0;
    this.history = new Float64Array(Math.ceil(((o.delayMs + o.driftMs + gapMs) / 1000) * RATE) + 2 * TAPS + 1);
    this.underrunRandom = mulberry32(o.seed + 7717);
    this.scheduleUnderrun(0);
  }

  /** From now on the echo reaches the microphone at this level against the user's speech, dB (a speaker turned up or down). */
  setEchoDb(echoDb: number): void {
    this.echoGain = echoGainFor(this.options, echoDb);
  }

  /** The delay of the direct sound at sample `index` (since the room was made), ms. */
  delayAt(index: number): number {
    const o = this.options;
    return (
      o.delayMs + o.driftMs * Math.sin((2 * Math.PI * ((index / RATE) * 1000)) / o.driftPeriodMs + this.driftPhase)
    );
  }

  /** One block: what the speaker played and what the user said (same length; none is silence). */
  hear(played: Int16Array, user?: Int16Array): Heard {
    const n = played.length;
    const delayed = new Float64Array(n);
    const size = this.history.length;
    for (let i = 0; i < n; i++) {
      const index = this.at + i;
      this.history[index % size] = played[i] as number;
      if (index >= this.nextUnderrun) this.underrun(index);
      const back = (this.delayAt(index) / 1000) * RATE + this.behind;
      delayed[i] = index < this.silentUntil ? 0 : this.fractional(index - back);
    }
    const echo = this.convolver.push(delayed);
    const noise = new Float64Array(n);
    const mic = new Int16Array(n);
    for (let i = 0; i < n; i++) {
      echo[i] = (echo[i] as number) * this.echoGain;
      // Pink-ish noise: white plus a low-passed part, like a room's hum and hiss.
      const white = this.random() * 2 - 1;
      this.noiseState = 0.97 * this.noiseState + 0.03 * white * 6;
      noise[i] = (0.4 * white + this.noiseState) * this.noiseGain;
      const sum = (echo[i] as number) + (noise[i] as number) + (user?.[i] ?? 0);
      mic[i] = Math.max(-32768, Math.min(32767, Math.round(sum)));
    }
    this.at += n;
    return { mic, echo, noise };
  }

  /** The speaker falls silent and plays on later, or, already behind, skips ahead to where it was. */
  private underrun(index: number): void {
    this.underrunsAt.push((index / RATE) * 1000);
    const gap = Math.round(((this.options.underruns?.gapMs ?? 0) / 1000) * RATE);
    if (this.behind === 0) {
      this.behind = gap;
      this.silentUntil = index + gap;
    } else {
      this.behind = 0;
    }
    this.scheduleUnderrun(index);
  }

  private scheduleUnderrun(from: number): void {
    const every = this.options.underruns?.everyMs;
    if (every === undefined) return;
    const afterMs = every * (0.5 + this.underrunRandom());
    this.nextUnderrun = from + Math.round((afterMs / 1000) * RATE);
  }

  /** The played signal at fractional sample `position` (never more than the history back), zero before the start. */
  private fractional(position: number): number {
    const size = this.history.length;
    const base = Math.floor(position);
    let sum = 0;
    for (let i = base - TAPS + 1; i <= base + TAPS; i++) {
      if (i < 0) continue;
      const d = Math.abs(position - i);
      if (d < TAPS) sum += (this.history[i % size] as number) * (KERNEL[Math.round(d * STEPS)] as number);
    }
    return sum;
  }
}

/** RMS of the noise generator before scaling (measured once: white/2.5 + the one-pole part). */
const NOISE_RMS = measureNoiseRms();

function measureNoiseRms(): number {
  const random = mulberry32(12345);
  let state = 0;
  let sum = 0;
  const n = 200_000;
  for (let i = 0; i < n; i++) {
    const white = random() * 2 - 1;
    state = 0.97 * state + 0.03 * white * 6;
    const v = 0.4 * white + state;
    sum += v * v;
  }
  return Math.sqrt(sum / n);
}

/** Active speech level, dBFS: the RMS over 20 ms frames no more than 30 dB below the loudest (-120 for silence). */
export function activeLevelDbfs(samples: ArrayLike<number>): number {
  const frame = RATE / 50;
  const powers: number[] = [];
  for (let at = 0; at + frame <= samples.length; at += frame) {
    let sum = 0;
    for (let i = at; i < at + frame; i++) sum += ((samples[i] as number) / 32768) ** 2;
    powers.push(sum / frame);
  }
  const loudest = Math.max(0, ...powers);
  if (loudest === 0) return -120;
  const active = powers.filter((p) => p >= loudest / 1000);
  return 10 * Math.log10(active.reduce((a, b) => a + b, 0) / active.length);
}

/** The samples scaled so that their active level is `levelDbfs`. */
export function atLevel(samples: Int16Array, levelDbfs: number): Int16Array {
  const gain = 10 ** ((levelDbfs - activeLevelDbfs(samples)) / 20);
  return Int16Array.from(samples, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
}

/** Direct sound, a few early reflections, then exponentially decaying noise; unit energy. */
function roomResponse(rt60Ms: number, directToReverbDb: number, random: () => number): Float64Array {
  const length = Math.max(64, Math.round((rt60Ms / 1000) * RATE));
  const reflected = new Float64Array(length);
  for (let r = 0; r < 6; r++) {
    const at = Math.round((0.002 + random() * 0.023) * RATE);
    if (at < length) reflected[at] = (reflected[at] as number) + (random() < 0.5 ? -1 : 1) * (0.3 + 0.4 * random());
  }
  const decay = Math.log(1000) / ((rt60Ms / 1000) * RATE);
  for (let i = Math.round(0.005 * RATE); i < length; i++) {
    reflected[i] = (reflected[i] as number) + 0.5 * gaussian(random) * Math.exp(-decay * i);
  }
  const reflectedEnergy = reflected.reduce((sum, v) => sum + v * v, 0);
  const scale = Math.sqrt(10 ** (-directToReverbDb / 10) / reflectedEnergy);
  const response = Float64Array.from(reflected, (v) => v * scale);
  response[0] = 1;
  const norm = Math.sqrt(response.reduce((sum, v) => sum + v * v, 0));
  return response.map((v) => v / norm);
}

function gaussian(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A small seeded generator (mulberry32): uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function echoGainFor(o: RoomOptions, echoDb: number): number {
  return 10 ** ((o.speechLevelDbfs + echoDb - o.playedLevelDbfs) / 20);
}
