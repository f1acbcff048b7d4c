/**
 * The room loop: hark's real voice loop (`assistant()` with Silero, the speexdsp echo canceller
 * and the segmenter) in a simulated room, on virtual time. hark's player sounds through
 * `test/room/room.ts` (a delay hark is not told, drifting, a room response, noise) back into the
 * microphone, mixed with what the user side of the room says: labelled clips, placed by the
 * benchmark. The service is fast fakes on the same clock: a transcriber that hears the truth (the
 * labelled words of the user's speech in the utterance, else the words hark was playing when
 * the utterance's audio left the speaker, else nothing), a scripted chat model, and a
 * synthesizer that speaks from a bank of real speech (espeak-ng PCM).
 *
 * Each step is one 32 ms chunk of microphone audio: the clock advances to the chunk's end
 * (running everything due on the way, each at its own time), the room renders what the device
 * played and the user said over that chunk, the chunk goes into the loop, and the step waits
 * for the VAD's promise, so hark's reaction lands before the next chunk is heard.
 */
import { Subject, concat, defer, map, timer, type Observable } from 'rxjs';
import { AcousticEchoCanceller, ECHO_FRAME_SAMPLES } from '../../dist/audio/echo/echo-canceller.js';
import { loadEarcons, silentEarcons } from '../../dist/audio/earcons.js';
import { bufferOf, dbfs, rms, samplesOf } from '../../dist/audio/pcm.js';
import { readWavInfo } from '../../dist/audio/wav-header.js';
import { defaultConfig, type HarkConfig } from '../../dist/config/schema.js';
import type { ReplyEvent } from '../../dist/contract/reply.js';
import type { AssistantState } from '../../dist/dialog/turn.js';
import { SileroVad } from '../../dist/listen/silero-vad.js';
import { assistant } from '../../dist/pipeline/assistant.js';
import type { AssistantEvent } from '../../dist/pipeline/events.js';
import type { EarconKind, EchoCanceller, TranscribeResult, Vad } from '../../dist/pipeline/ports.js';
import { Room, mulberry32, type RoomOptions } from '../dist/room/test/room/room.js';
import { silentLogger } from '../../dist/system/logger.js';
import { RoomPlayer, UserSide, VirtualClock } from './room-device.js';

export const RATE = 16000;
export const FRAME = 512;
export const FRAME_MS = (FRAME / RATE) * 1000;
const PLAYER_RATE = 24000;
/** Samples that identify a frame: the first 256 (one frame of the echo canceller). */
const FINGERPRINT = 256;

/** A clip of the user's side of the room: 16 kHz samples at the level it is to be heard, and its labels (ms into the clip). */
export interface LabelledClip {
  name: string;
  samples: Int16Array;
  speech: { startMs: number; endMs: number }[];
  sounds: { startMs: number; endMs: number; what: string }[];
}

export interface ServiceTiming {
  transcribeMs: number;
  firstTokenMs: number;
  sentenceGapMs: number;
  ttsFirstByteMs: number;
  ttsChunkMs: number;
}

const TIMING: ServiceTiming = {
  transcribeMs: 150,
  firstTokenMs: 250,
  sentenceGapMs: 80,
  ttsFirstByteMs: 120,
  ttsChunkMs: 100,
};

export interface RoomLoopOptions {
  seed: number;
  room: Partial<RoomOptions>;
  /** hark's voice: each sentence's 24 kHz PCM, by its text. */
  voice: Map<string, Int16Array>;
  /** What the chat model answers: one of these lists of sentences, drawn per query. */
  replies: string[][];
  configure?: ((config: HarkConfig) => void) | undefined;
  echoCancel?: boolean;
  earcons?: boolean;
  /** Keep the microphone audio and the echo reference's input (see `recording`). */
  record?: boolean | undefined;
  timing?: Partial<ServiceTiming>;
}

/** One VAD frame as hark saw it, for finding out why it did what it did. */
export interface FrameTrace {
  atMs: number;
  micDb: number;
  /** After the echo canceller, and the echo it took out. */
  outDb: number;
  echoDb: number;
  /** The canceller's own account: trusted (converged), and the loudest the echo may be (dBFS, null while unknown). */
  trusted: boolean;
  predictedDb: number | null;
  /** How far below the echo taken out the canceller was measured to leave hark's voice (dB, null while unmeasured). */
  lossDb: number | null;
  /** How far the sound beyond the echo predicted band by band lies under that echo (dB, null while unknown; see BandPath). */
  beyondDb: number | null;
  /** hark judged the frame its own voice (the VAD was given silence instead). */
  own: boolean;
  /** With ROOM_TRACE_STATE set: the canceller's delay in use and its re-alignments so far. */
  delayMs?: number;
  realignments?: number;
  /** With ROOM_TRACE_STATE set: how much of the microphone's sound lately was hark's (see DelayEstimator.coherence). */
  coherence?: number | null;
  probability: number;
  state: AssistantState;
}

/** What the player told the echo reference, and when (virtual ms). */
export type ReferenceEvent =
  { at: number; samples: Int16Array; rateHz: number; startMs: number } | { at: number; dropAtMs: number };

/** What the transcriber was asked and what it heard, by the truth. */
export interface Hearing {
  fromMs: number;
  toMs: number;
  source: 'user' | 'hark' | 'none';
  text: string;
}

export class RoomLoop {
  readonly clock = new VirtualClock();
  readonly player: RoomPlayer;
  readonly user = new UserSide();
  readonly room: Room;
  readonly config: HarkConfig;
  /** Every event of the loop with the virtual time it came out (per-frame speech and silence events left out). */
  readonly events: { at: number; event: AssistantEvent }[] = [];
  readonly trace: FrameTrace[] = [];
  readonly hearings: Hearing[] = [];
  /** Mean power of hark's echo alone at the microphone, per chunk (full scale 1): the truth the canceller is scored on. */
  readonly echoPower: number[] = [];
  /** Mean power of the user's side of the room alone at the microphone, per chunk: the truth beside it. */
  readonly userPower: number[] = [];
  /**
   * With `record`: what the listening half was given, to run it again alone (room-cpu.ts): every
   * chunk of microphone audio, and everything the player told the echo reference, with when.
   */
  readonly recording: { mic: Int16Array[]; reference: ReferenceEvent[] } = { mic: [], reference: [] };
  state: AssistantState = 'listening';
  /** Virtual CPU-free time spent; the loop's real CPU time, for the record. */
  frames = 0;
  private readonly input = new Subject<Buffer>();
  private readonly shutdown = new Subject<void>();
  private readonly random: () => number;
  private readonly frameIndex = new Map<number, number>();
  private vadFrames = 0;
  private readonly sounding: { at: number; text: string; fraction: number }[] = [];
  private pending: Promise<number> | undefined;
  private failure: unknown;
  private done = false;
  private aecFrame = {
    mic: 0,
    removed: 0,
    out: 0,
    n: 0,
    trusted: true,
    predicted: -120 as number | null,
    loss: Infinity as number | null,
    beyond: null as number | null,
  };
  private readonly lastOnset = new Set<number>();

  private constructor(
    private readonly options: RoomLoopOptions,
    config: HarkConfig,
    private readonly vad: SileroVad,
    private readonly canceller: AcousticEchoCanceller | undefined,
  ) {
    this.random = mulberry32(options.seed * 7919 + 17);
    this.room = new Room({ seed: options.seed, ...options.room });
    this.config = config;
    this.player = new RoomPlayer(PLAYER_RATE, { now: () => this.clock.now(), scheduler: this.clock });
    if (canceller) this.player.listen(canceller.reference);
    if (options.record) {
      const reference = this.recording.reference;
      this.player.listen({
        write: (samples, rateHz, startMs) => reference.push({ at: this.clock.now(), samples, rateHz, startMs }),
        drop: (atMs) => reference.push({ at: this.clock.now(), dropAtMs: atMs }),
      });
    }
  }

  static async start(options: RoomLoopOptions): Promise<RoomLoop> {
    const config = defaultConfig();
    config.wake.engine = 'none';
    options.configure?.(config);
    const vad = await SileroVad.load({ capDbfs: config.vad.energyGateDbfs, marginDb: config.vad.gateMarginDb });
    const canceller =
      options.echoCancel === false
        ? undefined
        : await AcousticEchoCanceller.load({ ...config.echo, sampleRateHz: RATE, frameSamples: ECHO_FRAME_SAMPLES });
    const loop = new RoomLoop(options, config, vad, canceller);
    loop.begin();
    return loop;
  }

  now(): number {
    return this.clock.now();
  }

  /** One chunk of microphone audio: the clock moves to its end, the room is heard, hark reacts. */
  async step(): Promise<void> {
    if (this.failure) throw this.failure as Error;
    const k0 = this.frames * FRAME;
    const endMs = ((k0 + FRAME) / RATE) * 1000;
    this.clock.advanceTo(endMs);
    const playing = this.player.sounding();
    if (playing) this.sounding.push({ at: endMs, ...playing });
    if (this.sounding.length > 4000) this.sounding.splice(0, 2000);
    const user = this.user.read(k0, FRAME);
    const { mic, echo } = this.room.hear(this.player.device.render(k0, FRAME), user);
    this.echoPower.push(meanPower(echo));
    this.userPower.push(user ? meanPower(user) : 0);
    if (this.options.record) this.recording.mic.push(mic);
    this.frames++;
    this.input.next(bufferOf(mic));
    while (this.pending) {
      const pending = this.pending;
      await pending;
      if (this.pending === pending) this.pending = undefined;
    }
    if (this.failure) throw this.failure as Error;
  }

  async run(ms: number): Promise<void> {
    const until = this.now() + ms;
    while (this.now() < until) await this.step();
  }

  /** Steps until `done()` holds (true) or `timeoutMs` has passed (false). */
  async until(done: () => boolean, timeoutMs: number): Promise<boolean> {
    const limit = this.now() + timeoutMs;
    while (!done()) {
      if (this.now() >= limit) return false;
      await this.step();
    }
    return true;
  }

  /** The user side plays `clip` from `inMs` from now; returns the clip's number and its first labelled speech onset (room ms). */
  say(clip: LabelledClip, text: string, inMs = 0): { clip: number; startMs: number; onsetMs: number; endMs: number } {
    const start = Math.round(((this.now() + inMs) / 1000) * RATE);
    const number = this.user.place(clip.samples, start, clip.speech, text, clip.sounds);
    const startMs = (start / RATE) * 1000;
    const onsetMs = startMs + (clip.speech[0]?.startMs ?? clip.sounds[0]?.startMs ?? 0);
    const endMs = startMs + (clip.speech.at(-1)?.endMs ?? clip.sounds.at(-1)?.endMs ?? 0);
    return { clip: number, startMs, onsetMs, endMs };
  }

  /** hark's player plays an earcon now (as hark does when it starts listening or thinking). */
  playEarcon(kind: EarconKind): void {
    this.earcons.play(kind);
  }

  /** A number in [0, 1) from the loop's seeded generator. */
  draw(): number {
    return this.random();
  }

  async close(): Promise<void> {
    this.shutdown.next();
    this.input.complete();
    this.done = true;
    this.clock.advanceTo(this.now() + 1);
    await this.vad.close();
    this.canceller?.close();
  }

  private earcons = silentEarcons;

  private begin(): void {
    const timing = { ...TIMING, ...this.options.timing };
    const clock = this.clock;
    const player = this.player;
    this.earcons = this.options.earcons === false ? silentEarcons : loadEarcons(player, silentLogger);
    const later = <T>(ms: number, value: () => T): Observable<T> => timer(ms, clock).pipe(map(value));
    this.input
      .pipe(
        assistant({
          config: this.config,
          vad: this.tracedVad(),
          echo: this.tracedCanceller(),
          transcriber: {
            transcribe: (wav): Observable<TranscribeResult> =>
              defer(() => {
                const text = this.hear(wav);
                return later(timing.transcribeMs + text.length, () => ({ text }));
              }),
          },
          replyModel: {
            reply: () =>
              defer(() => {
                const sentences = this.options.replies[Math.floor(this.random() * this.options.replies.length)] ?? [];
                return concat(
                  ...sentences.map((text, i) =>
                    later<ReplyEvent>(i === 0 ? timing.firstTokenMs : timing.sentenceGapMs, () => ({
                      type: 'text',
                      text: `${text} `,
                    })),
                  ),
                  later<ReplyEvent>(timing.sentenceGapMs, () => ({
                    type: 'done',
                    stopReason: 'stop',
                    usage: { inputTokens: 10, outputTokens: 10, totalTokens: 20 },
                  })),
                );
              }),
          },
          synthesizer: {
            sampleRateHz: PLAYER_RATE,
            synthesize: (text) =>
              defer(() => {
                const pcm = this.options.voice.get(text.trim());
                if (!pcm) throw new Error(`no voice for ${JSON.stringify(text)}`);
                const step = Math.round((PLAYER_RATE * 500) / 1000);
                const chunks: Observable<Buffer>[] = [];
                for (let at = 0; at < pcm.length; at += step) {
                  const chunk = bufferOf(pcm.subarray(at, Math.min(pcm.length, at + step)));
                  player.tags.set(chunk, { text: text.trim(), offset: at, total: pcm.length });
                  chunks.push(later(at === 0 ? timing.ttsFirstByteMs : timing.ttsChunkMs, () => chunk));
                }
                return concat(...chunks);
              }),
          },
          player,
          earcons: this.earcons,
          logger: silentLogger,
          queue: false,
          shutdown: this.shutdown,
          afterIo: (work) => {
            const scheduled = clock.schedule(work);
            return () => scheduled.unsubscribe();
          },
          now: () => clock.now(),
        }),
      )
      .subscribe({
        next: (event) => this.record(event),
        error: (error: unknown) => (this.failure = error),
      });
  }

  private record(event: AssistantEvent): void {
    if (event.type === 'state') this.state = event.state;
    if (event.type === 'silence') return;
    if (event.type === 'speech') {
      if (this.lastOnset.has(event.id)) return;
      this.lastOnset.add(event.id);
    }
    this.events.push({ at: this.now(), event });
  }

  /** Silero, with every frame it scores remembered (to find an utterance's time by its first frame) and traced. */
  private tracedVad(): Vad {
    const vad = this.vad;
    return {
      name: vad.name,
      frameSamples: vad.frameSamples,
      probability: (frame) => {
        const index = this.vadFrames++;
        if (!this.canceller) this.frameIndex.set(fingerprint(frame.subarray(0, FINGERPRINT)), index);
        const aec = this.aecFrame;
        this.aecFrame = {
          mic: 0,
          removed: 0,
          out: 0,
          n: 0,
          trusted: true,
          predicted: -120,
          loss: Infinity,
          beyond: null,
        };
        const outDb = aec.n ? dbfs(Math.sqrt(aec.out / aec.n)) : dbfs(rms(frame));
        const pending = vad.probability(frame).then((probability) => {
          if (!this.done)
            this.trace.push({
              atMs: index * FRAME_MS,
              micDb: aec.n ? dbfs(Math.sqrt(aec.mic / aec.n)) : outDb,
              outDb,
              echoDb: aec.n ? dbfs(Math.sqrt(aec.removed / aec.n)) : -120,
              own: frame.every((v) => v === 0),
              trusted: aec.trusted,
              predictedDb: aec.predicted,
              lossDb: aec.loss === Infinity ? null : aec.loss,
              beyondDb: aec.beyond,
              ...(process.env.ROOM_TRACE_STATE && this.canceller ? cancellerTrace(this.canceller) : {}),
              probability,
              state: this.state,
            });
          return probability;
        });
        this.pending = pending;
        return pending;
      },
      reset: () => vad.reset(),
      close: () => vad.close(),
    };
  }

  private tracedCanceller(): EchoCanceller | undefined {
    const canceller = this.canceller;
    if (!canceller) return undefined;
    const trace = (mic: Int16Array, out: Int16Array): void => {
      // Each VAD frame starts with a frame of the canceller's: utterances are found by it.
      if (this.aecFrame.n === 0) this.frameIndex.set(fingerprint(out.subarray(0, FINGERPRINT)), this.vadFrames);
      for (let i = 0; i < mic.length; i++) {
        const m = (mic[i] as number) / 32768;
        const r = ((mic[i] as number) - (out[i] as number)) / 32768;
        this.aecFrame.mic += m * m;
        this.aecFrame.removed += r * r;
        this.aecFrame.out += ((out[i] as number) / 32768) ** 2;
      }
      this.aecFrame.n += mic.length;
      const verdict = canceller.lastVerdict();
      if (verdict.possible) {
        const frame = this.aecFrame;
        frame.trusted &&= verdict.trusted;
        frame.loss = frame.loss === null || verdict.lossDb === null ? null : Math.min(frame.loss, verdict.lossDb);
        frame.predicted =
          frame.predicted === null || verdict.predictedDbfs === null
            ? null
            : Math.max(frame.predicted, verdict.predictedDbfs);
        if (verdict.beyondDb !== null) frame.beyond = Math.max(frame.beyond ?? -Infinity, verdict.beyondDb);
      }
    };
    return {
      frameSamples: canceller.frameSamples,
      passes: (mic, captureTimeMs) => {
        if (!canceller.passes(mic, captureTimeMs)) return false;
        // Passed untouched: traced as the canceller's frames that took nothing out.
        for (let at = 0; at < mic.length; at += canceller.frameSamples) {
          const frame = mic.subarray(at, at + canceller.frameSamples);
          trace(frame, frame);
        }
        return true;
      },
      cancel: (mic, captureTimeMs) => {
        const out = canceller.cancel(mic, captureTimeMs);
        trace(mic, out);
        return out;
      },
      lastVerdict: () => canceller.lastVerdict(),
      state: () => canceller.state(),
    };
  }

  /** What a good recogniser would make of the utterance in `wav`: the truth of the room at its time. */
  private hear(wav: Buffer): string {
    const info = readWavInfo(wav);
    const samples = samplesOf(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes));
    const index =
      samples.length >= FRAME ? this.frameIndex.get(fingerprint(samples.subarray(0, FINGERPRINT))) : undefined;
    if (index === undefined) {
      this.hearings.push({ fromMs: NaN, toMs: NaN, source: 'none', text: '' });
      return '';
    }
    const fromMs = index * FRAME_MS;
    const toMs = fromMs + (samples.length / RATE) * 1000;
    const user = this.user.speechIn(fromMs, toMs).flatMap((span) => {
      const overlap = Math.min(toMs, span.endMs) - Math.max(fromMs, span.startMs);
      if (overlap < Math.min(100, (span.endMs - span.startMs) / 2)) return [];
      const length = span.endMs - span.startMs;
      const first = Math.floor(((Math.max(fromMs, span.startMs) - span.startMs) / length) * span.words.length);
      const last = Math.ceil(((Math.min(toMs, span.endMs) - span.startMs) / length) * span.words.length);
      return span.words.slice(first, Math.max(first + 1, last));
    });
    if (user.length > 0) return this.heard(fromMs, toMs, 'user', user.join(' '));
    const delayMs = this.room.delayAt((fromMs / 1000) * RATE);
    const played = this.sounding.filter((s) => s.at > fromMs - delayMs && s.at <= toMs - delayMs + FRAME_MS);
    const words: string[] = [];
    for (const text of new Set(played.map((s) => s.text))) {
      const fractions = played.filter((s) => s.text === text).map((s) => s.fraction);
      const all = text.split(/\s+/);
      const first = Math.floor(Math.min(...fractions) * all.length);
      const last = Math.ceil(Math.max(...fractions) * all.length);
      words.push(...all.slice(first, Math.max(first + 1, last)));
    }
    return this.heard(fromMs, toMs, words.length ? 'hark' : 'none', words.join(' '));
  }

  private heard(fromMs: number, toMs: number, source: Hearing['source'], text: string): string {
    this.hearings.push({ fromMs, toMs, source, text });
    return text;
  }
}

/** The canceller's own state that a trace shows (with ROOM_TRACE_STATE). */
function cancellerTrace(canceller: AcousticEchoCanceller): Pick<FrameTrace, 'delayMs' | 'realignments' | 'coherence'> {
  const { delayMs, realignments, coherence } = canceller.state();
  return { delayMs, realignments, coherence };
}

/** Mean power of a chunk, full scale 1. */
function meanPower(samples: ArrayLike<number>): number {
  let power = 0;
  for (let i = 0; i < samples.length; i++) power += ((samples[i] as number) / 32768) ** 2;
  return samples.length ? power / samples.length : 0;
}

/** FNV-1a over the samples: which frame an utterance starts with. */
function fingerprint(samples: Int16Array): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < samples.length; i++) {
    hash ^= (samples[i] as number) & 0xffff;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
