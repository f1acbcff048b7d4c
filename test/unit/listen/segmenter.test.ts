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

  it('the energy VAD alone still finds the recorded sentence', async () => {
    const samples = await fixtureSamples(UTTERANCE);
    const found = utterancesOf(await segmentAll(samples, new EnergyVad(config.energyGateDbfs)));
    expect(found.length).toBeGreaterThanOrEqual(1);
  });
});

describe('Segmenter on scored frames', () => {
  const FRAME_MS = (VAD_FRAME_SAMPLES / RATE) * 1000;
  /** Frames from a script: `[probability, milliseconds]` stretches, rounded to whole frames. */
  function run(script: [number, number, 'doubtful'?][], extra: Partial<typeof config> = {}): SegmenterEvent[] {
    const segmenter = new Segmenter({ ...config, ...extra });
    const events: SegmenterEvent[] = [];
    let marker = 0;
    for (const [probability, ms, doubtful] of script) {
      for (let i = 0; i < Math.round(ms / FRAME_MS); i++) {
        const samples = new Int16Array(VAD_FRAME_SAMPLES).fill(++marker % 30000);
        const frame = { samples, probability, capturedAt: marker * FRAME_MS };
        events.push(...segmenter.push(doubtful ? { ...frame, doubtful: true } : frame));
      }
    }
    return [...events, ...segmenter.flush()];
  }

  it("does not count speech that may be hark's unvouched echo: echo alone is discarded, the user after it is kept", () => {
    // Echo louder than measured, in bursts (the reply pausing and playing on), then silence.
    const echo: [number, number, 'doubtful'?][] = [
      [0.95, 256, 'doubtful'],
      [0.1, 160],
    ];
    const echoOnly = run([[0, 320], ...echo, ...echo, ...echo, ...echo, [0, 1000]]);
    expect(utterancesOf(echoOnly)).toEqual([]);
    expect(echoOnly.find((e) => e.type === 'discarded')).toMatchObject({ voicedMs: 0 });
    expect(echoOnly.some((e) => e.type === 'speech')).toBe(true);
    expect(echoOnly.some((e) => e.type === 'tentative')).toBe(false);
    // The same, and the user goes on speaking once hark's voice no longer reaches the microphone.
    const withUser = run([[0, 320], ...echo, ...echo, [0.95, 480], [0, 1000]]);
    const [utterance] = utterancesOf(withUser);
    expect(utterance?.onsetMs).toBe(320);
    const longest = Math.max(...withUser.flatMap((e) => (e.type === 'speech' ? [e.durationMs] : [0])));
    expect(longest).toBe(480);
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
