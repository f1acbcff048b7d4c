import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { Segmenter } from '../../../src/listen/segmenter.js';
import type { SegmenterEvent, Utterance, SegmenterConfig } from '../../../src/listen/speech-events.js';
import { SileroVad } from '../../../src/listen/silero-vad.js';
import { EnergyVad } from '../../../src/listen/energy-vad.js';
import { VAD_FRAME_SAMPLES } from '../../../src/listen/vad.js';
import type { Vad } from '../../../src/pipeline/ports.js';
import { MONOLOGUE, UTTERANCE, fixtureSamples } from '../../helpers/speech.js';
import { tone } from '../../helpers/audio.js';
import { speechFixture } from '../../helpers/speech-fixtures.js';

const RATE = 16000;
const config = { ...defaultConfig().vad, sampleRateHz: RATE } as ReturnType<typeof defaultConfig>['vad'] &
  SegmenterConfig;
let silero: SileroVad;
beforeAll(async () => {
  silero = await SileroVad.load({ capDbfs: config.energyGateDbfs, marginDb: config.gateMarginDb });
});
afterAll(() => silero.close());

async function segmentAll(samples: Int16Array, vad: Vad): Promise<SegmenterEvent[]> {
  vad.reset();
  const segmenter = new Segmenter(config);
  const events: SegmenterEvent[] = [];
  for (let at = 0; at + VAD_FRAME_SAMPLES <= samples.length; at += VAD_FRAME_SAMPLES) {
    const frame = samples.subarray(at, at + VAD_FRAME_SAMPLES);
    const capturedAt = ((at + VAD_FRAME_SAMPLES) / RATE) * 1000;
    events.push(...segmenter.push({ samples: frame, probability: await vad.probability(frame), capturedAt }));
  }
  return [...events, ...segmenter.flush()];
}

const utterancesOf = (events: SegmenterEvent[]): Utterance[] =>
  events.flatMap((e) => (e.type === 'utterance' ? [e.utterance] : []));

describe('Segmenter on real speech (Silero v5)', () => {
  it('cuts one recorded sentence into one utterance, pre-roll included', async () => {
    const samples = await fixtureSamples(UTTERANCE);
    const [utterance, ...rest] = utterancesOf(await segmentAll(samples, silero));
    expect(rest).toEqual([]);
    expect(utterance?.final).toBe(true);
    const startMs = utterance ? utterance.endMs - (utterance.samples.length / RATE) * 1000 : 0;
    expect(utterance?.onsetMs ?? 0).toBeGreaterThan(startMs);
    expect((utterance?.onsetMs ?? 0) - startMs).toBeLessThanOrEqual(config.preRollMs + 1);
    expect((utterance?.samples.length ?? 0) / RATE).toBeGreaterThan(4);
  });

  it('cuts a 71 s monologue into parts of at most 30 s at quiet points, the last one final', async () => {
    const samples = await fixtureSamples(MONOLOGUE);
    const parts = utterancesOf(await segmentAll(samples, silero));
    expect(parts.length).toBeGreaterThanOrEqual(3);
    expect(new Set(parts.map((p) => p.id)).size).toBe(1);
    expect(parts.map((p) => p.final)).toEqual([...parts.slice(1).map(() => false), true]);
    for (const part of parts) expect(part.samples.length / RATE).toBeLessThanOrEqual(30);
    // As few requests as the limit allows.
    expect(parts).toHaveLength(3);
    const total = parts.reduce((sum, p) => sum + p.samples.length, 0) / RATE;
    expect(total).toBeGreaterThan(69);
  });

  it('drops a click and a cough-length burst as blips', async () => {
    const silence = new Int16Array(RATE);
    const burst = tone(120, RATE, 300, 0.5);
    const samples = new Int16Array(silence.length * 2 + burst.length);
    samples.set(burst, silence.length);
    const events = await segmentAll(samples, new EnergyVad(config.energyGateDbfs));
    expect(utterancesOf(events)).toEqual([]);
    expect(events.some((e) => e.type === 'discarded')).toBe(true);
  });

  it('lip clicks after the last word, which Silero still scores as speech, put off neither the end of speech nor the guess at it', async () => {
    // speech-a: the words end at 3950 ms (labelled); clicks at 4000–4050 and 4120–4190 ms score
    // 0.69–0.94, and the model's score first falls under the stop threshold at 4192 ms.
    const { samples, labels } = speechFixture('speech-a');
    const endMs = labels.speech.at(-1)?.endMs ?? 0;
    silero.reset();
    const segmenter = new Segmenter({ ...config, speculateAfterMs: 150 });
    let guessedAt: number | undefined;
    const utterances: Utterance[] = [];
    for (let at = 0; at + VAD_FRAME_SAMPLES <= samples.length; at += VAD_FRAME_SAMPLES) {
      const frame = samples.subarray(at, at + VAD_FRAME_SAMPLES);
      const capturedAt = ((at + VAD_FRAME_SAMPLES) / RATE) * 1000;
      for (const event of segmenter.push({
        samples: frame,
        probability: await silero.probability(frame),
        capturedAt,
      })) {
        if (event.type === 'tentative') guessedAt ??= capturedAt;
        if (event.type === 'utterance') utterances.push(event.utterance);
      }
    }
    expect(utterances).toHaveLength(1);
    // Within two frames of the truth (by the model alone: 242 ms after it).
    expect(Math.abs((utterances[0]?.speechEndedAt ?? 0) - endMs)).toBeLessThanOrEqual(64);
    // The guess 150 ms into the pause, give or take the frames (by the model alone: 434 ms after the words).
    expect(guessedAt).toBeDefined();
    expect((guessedAt ?? 0) - endMs).toBeLessThanOrEqual(150 + 64);
  });

  it('the energy VAD alone still finds the recorded sentence', async () => {
    const samples = await fixtureSamples(UTTERANCE);
    const found = utterancesOf(await segmentAll(samples, new EnergyVad(config.energyGateDbfs)));
    expect(found.length).toBeGreaterThanOrEqual(1);
  });
});

/** `[probability, milliseconds, echo?]`: stretches of frames, some perhaps hark's echo (see ScoredFrame). */
type Script = [number, number, ('doubtful' | 'faint')?][];

describe('Segmenter on scored frames', () => {
  const FRAME_MS = (VAD_FRAME_SAMPLES / RATE) * 1000;
  /** Frames from a script: `[probability, milliseconds, echo?]` stretches, rounded to whole frames. */
  function run(script: Script, extra: Partial<typeof config> = {}): SegmenterEvent[] {
    const segmenter = new Segmenter({ ...config, ...extra });
    const events: SegmenterEvent[] = [];
    let marker = 0;
    for (const [probability, ms, echo] of script) {
      for (let i = 0; i < Math.round(ms / FRAME_MS); i++) {
        const samples = new Int16Array(VAD_FRAME_SAMPLES).fill(++marker % 30000);
        const frame = { samples, probability, capturedAt: marker * FRAME_MS };
        events.push(...segmenter.push(echo ? { ...frame, [echo]: true } : frame));
      }
    }
    return [...events, ...segmenter.flush()];
  }

  it("does not count speech that may be hark's unvouched echo: echo alone is discarded, the user after it is kept", () => {
    // Echo louder than measured, in bursts (the reply pausing and playing on), then silence.
    const echo: Script = [
      [0.95, 256, 'doubtful'],
      [0.1, 160],
    ];
    const echoOnly = run([[0, 320], ...echo, ...echo, ...echo, ...echo, [0, 1000]]);
    expect(utterancesOf(echoOnly)).toEqual([]);
    expect(echoOnly.find((e) => e.type === 'discarded')).toMatchObject({ voicedMs: 0 });
    expect(echoOnly.some((e) => e.type === 'speech')).toBe(true);
    expect(echoOnly.some((e) => e.type === 'tentative')).toBe(false);
    // Reported apart, for the barge-in judge: 4 bursts of 8 doubtful frames.
    const lastSpeech = echoOnly.filter((e) => e.type === 'speech').at(-1);
    expect(lastSpeech).toMatchObject({ durationMs: 0, doubtfulMs: 4 * 256 });
    // One frame of the echo's reverberation heard clear of it does not make it the user's.
    expect(
      utterancesOf(
        run([
          [0, 320],
          [0.95, 256, 'doubtful'],
          [0.95, 32],
          [0, 1000],
        ]),
      ),
    ).toEqual([]);
    // A talker whose first 256 ms were doubtful, who goes on for 96 ms clear of hark's voice, is kept.
    expect(
      utterancesOf(
        run([
          [0, 320],
          [0.95, 256, 'doubtful'],
          [0.95, 96],
          [0, 1000],
        ]),
      ),
    ).toHaveLength(1);
    // The same, and the user goes on speaking once hark's voice no longer reaches the microphone.
    const withUser = run([[0, 320], ...echo, ...echo, [0.95, 480], [0, 1000]]);
    const [utterance] = utterancesOf(withUser);
    expect(utterance?.onsetMs).toBe(320);
    const longest = Math.max(...withUser.flatMap((e) => (e.type === 'speech' ? [e.durationMs] : [0])));
    expect(longest).toBe(480);
  });

  it("counts nothing of speech that may be what the canceller left of hark's voice, even once the user goes on", () => {
    const events = run([
      [0, 320],
      [0.95, 256, 'faint'],
      [0.95, 96],
      [0, 1000],
    ]);
    // It starts a stretch (a reply pauses for it), but 96 ms of the user's speech is not enough to keep.
    expect(events.some((e) => e.type === 'speech')).toBe(true);
    expect(utterancesOf(events)).toEqual([]);
    expect(events.filter((e) => e.type === 'speech').at(-1)).toMatchObject({ durationMs: 96, doubtfulMs: 0 });
  });

  it('while hark speaks, a soft first syllable under the raised start threshold counts as speech once speech starts', () => {
    const speaking = { speaking: true, listening: true };
    const durationAtStart = (script: Script) => {
      const segmenter = new Segmenter(config);
      let marker = 0;
      for (const [probability, ms, echo] of script) {
        for (let i = 0; i < Math.round(ms / FRAME_MS); i++) {
          const samples = new Int16Array(VAD_FRAME_SAMPLES).fill(++marker % 30000);
          const frame = {
            samples,
            probability,
            capturedAt: marker * FRAME_MS,
            ...(echo ? { [echo]: true } : {}),
          };
          const start = segmenter.push(frame, speaking).find((e) => e.type === 'speech');
          if (start?.type === 'speech') return start.durationMs;
        }
      }
      return undefined;
    };
    // Silero scored speech-c's first syllable 0.40-0.77 over hark's echo; the next one 0.9.
    expect(
      durationAtStart([
        [0.1, 320],
        [0.6, 128],
        [0.9, 32],
      ]),
    ).toBe(160);
    // Only the frames right before the start: an earlier stretch, broken off, is not.
    expect(
      durationAtStart([
        [0.1, 320],
        [0.6, 96],
        [0.2, 32],
        [0.6, 64],
        [0.9, 32],
      ]),
    ).toBe(96);
    // Nor what may be hark's echo the canceller cannot vouch for.
    expect(
      durationAtStart([
        [0.1, 320],
        [0.6, 128, 'doubtful'],
        [0.9, 32],
      ]),
    ).toBe(32);
  });

  it('does not count a pause as speech: two clicks 544 ms apart are a blip, not 576 ms of speech', () => {
    const events = run([
      [0, 320],
      [0.9, 32],
      [0.1, 544],
      [0.9, 32],
      [0, 1000],
    ]);
    expect(utterancesOf(events)).toEqual([]);
    const longest = Math.max(...events.flatMap((e) => (e.type === 'speech' ? [e.durationMs] : [0])));
    expect(longest).toBe(64);
    expect(events.find((e) => e.type === 'discarded')).toMatchObject({ voicedMs: 64 });
  });

  it('a breath after the last word, scored between the two thresholds, does not put the end of speech off', () => {
    // speech-a.wav in the latency bench: Silero scores the breath after the question 0.32, then 0.41.
    const events = run([
      [0.9, 640],
      [0.2, 128],
      [0.41, 64],
      [0.1, 480],
    ]);
    const [utterance] = utterancesOf(events);
    expect(utterance?.speechEndedAt).toBe(640);
    expect(events.filter((e) => e.type === 'speech')).toHaveLength(20);
  });

  it('within a pause, speech that starts again (at the onset threshold) carries the utterance on', () => {
    const events = run([
      [0.9, 640],
      [0.2, 128],
      [0.6, 320],
      [0.1, 800],
    ]);
    const utterances = utterancesOf(events);
    expect(utterances).toHaveLength(1);
    expect(utterances[0]?.speechEndedAt).toBe(1088);
  });

  /** Frames from a script of `[probability, milliseconds, amplitude]` stretches: here the level matters too. */
  function runLevels(
    script: [number, number, number][],
    context = { speaking: false, listening: true },
  ): { events: SegmenterEvent[]; at: number[] } {
    const segmenter = new Segmenter({ ...config, speculateAfterMs: 150 });
    const events: SegmenterEvent[] = [];
    const at: number[] = [];
    let frames = 0;
    for (const [probability, ms, amplitude] of script) {
      for (let i = 0; i < Math.round(ms / FRAME_MS); i++) {
        const capturedAt = ++frames * FRAME_MS;
        const samples = new Int16Array(VAD_FRAME_SAMPLES).fill(amplitude);
        for (const event of segmenter.push({ samples, probability, capturedAt }, context)) {
          events.push(event);
          at.push(capturedAt);
        }
      }
    }
    return { events, at };
  }
  const FLOOR = 6; // -75 dBFS
  const WORDS = 1500; // -27 dBFS
  const CLICK = 150; // -47 dBFS
  /** 1280 ms of words ending at 1600 ms, a frame at the floor that the model still scores 0.8, two clicks, then silence. */
  const AFTER_THE_WORDS: [number, number, number][] = [
    [0, 320, FLOOR],
    [0.99, 1280, WORDS],
    [0.8, 32, FLOOR],
    [0.94, 64, CLICK],
    [0.9, 64, FLOOR],
    [0.76, 64, CLICK],
    [0.2, 800, FLOOR],
  ];
  const guessAt = ({ events, at }: ReturnType<typeof runLevels>) => at[events.findIndex((e) => e.type === 'tentative')];

  it('a frame at the noise floor begins a pause whatever the model says, and clicks inside it are not speech', () => {
    const run = runLevels(AFTER_THE_WORDS);
    const [utterance, ...rest] = utterancesOf(run.events);
    expect(rest).toEqual([]);
    expect(utterance?.speechEndedAt).toBe(1600);
    // Five frames (160 ms) into the pause, not after the clicks (1984 ms by the model alone).
    expect(guessAt(run)).toBe(1760);
  });

  it('while hark speaks, the level plays no part (the canceller leaves the gaps between words at the floor)', () => {
    const run = runLevels(AFTER_THE_WORDS, { speaking: true, listening: true });
    expect(utterancesOf(run.events)[0]?.speechEndedAt).toBe(1824);
    expect(guessAt(run)).toBe(1984);
  });

  it('in a loud room, where speech itself comes near the floor, the model alone decides', () => {
    // Noise at -61 dBFS (7 s for the floor to rise to it), speech 6 dB over it, and a stretch of
    // speech at the floor the model is sure of.
    const run = runLevels([
      [0, 7040, 30],
      [0.99, 640, 60],
      [0.9, 224, 32],
      [0.99, 640, 60],
      [0.1, 800, 30],
    ]);
    expect(utterancesOf(run.events)).toHaveLength(1);
    expect(guessAt(run)).toBe(7040 + 640 + 224 + 640 + 160);
  });

  it('where the model alone finds a pause inside speech (its score hovering near the thresholds), one frame over the start threshold resumes it', () => {
    // The browser test's clip: an 8 kHz recording Silero is unsure of, far above the room's floor.
    const run = runLevels([
      [0, 320, FLOOR],
      [0.99, 640, WORDS],
      [0.3, 32, WORDS],
      [0.81, 32, WORDS],
      [0.49, 32, WORDS],
      [0.51, 32, WORDS],
      [0.39, 32, WORDS],
      [0.37, 32, WORDS],
      [0.88, 320, WORDS],
      [0.1, 800, FLOOR],
    ]);
    expect(utterancesOf(run.events)).toHaveLength(1);
    // No guess in the middle: the first comes 160 ms after the last word.
    expect(guessAt(run)).toBe(320 + 640 + 6 * 32 + 320 + 160);
  });

  it('inside a pause, a burst as long as a short word is speech again, a click is not', () => {
    const withBurst = (ms: number) =>
      utterancesOf(
        runLevels([
          [0, 320, FLOOR],
          [0.99, 640, WORDS],
          [0.1, 320, FLOOR],
          [0.99, ms, WORDS],
          [0.1, 800, FLOOR],
        ]).events,
      );
    expect(withBurst(96).map((u) => u.speechEndedAt)).toEqual([320 + 640 + 320 + 96]);
    expect(withBurst(64).map((u) => u.speechEndedAt)).toEqual([320 + 640]);
  });

  it('cuts a monologue at its latest pause of 200 ms or more, leaving speech for the next part', () => {
    // 40 s of speech: 2 s stretches with a 320 ms pause after each, plus a 96 ms hesitation in each stretch.
    const stretch: [number, number][] = [
      [0.9, 992],
      [0.1, 96],
      [0.9, 992],
      [0.1, 320],
    ];
    const script: [number, number][] = [[0, 320], ...Array.from({ length: 17 }, () => stretch).flat(), [0, 1000]];
    const parts = utterancesOf(run(script, { maxUtteranceMs: 29_800 }));
    expect(parts.length).toBe(2);
    const first = parts[0] as Utterance;
    const cutMs = first.endMs;
    // Every pause starts 2080 ms into a 2400 ms cycle (after 320 ms of lead-in); the cut is in the middle of one.
    const intoCycle = (cutMs - 320) % 2400;
    expect(intoCycle).toBeGreaterThan(2080);
    expect(intoCycle).toBeLessThan(2400);
    expect(first.samples.length / RATE).toBeLessThanOrEqual(29.8);
    // The final part has well over a second of speech: no near-empty extra request.
    const final = parts[1] as Utterance;
    expect(final.final).toBe(true);
    expect(final.samples.length / RATE).toBeGreaterThan(2);
  });
});
