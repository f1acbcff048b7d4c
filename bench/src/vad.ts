/** VAD + segmenter CPU time per minute of audio on one core: the real-time factor of listening. */
import { defaultConfig } from '../../dist/config/schema.js';
import { EnergyVad } from '../../dist/listen/energy-vad.js';
import { Segmenter } from '../../dist/listen/segmenter.js';
import { SileroVad } from '../../dist/listen/silero-vad.js';
import { VAD_FRAME_SAMPLES } from '../../dist/listen/vad.js';
import type { Vad } from '../../dist/pipeline/ports.js';
import { concatSamples, fixture, silence } from './fixtures.js';
import { median, round, table, writeResult } from './stats.js';

const RATE = 16000;

async function listen(samples: Int16Array, vad: Vad): Promise<{ cpuMs: number; utterances: number }> {
  const config = { ...defaultConfig().vad, sampleRateHz: RATE };
  vad.reset();
  const segmenter = new Segmenter(config);
  let utterances = 0;
  const cpu = process.cpuUsage();
  for (let at = 0; at + VAD_FRAME_SAMPLES <= samples.length; at += VAD_FRAME_SAMPLES) {
    const frame = samples.subarray(at, at + VAD_FRAME_SAMPLES);
    for (const event of segmenter.push({ samples: frame, probability: await vad.probability(frame), capturedAt: 0 })) {
      if (event.type === 'utterance') utterances++;
    }
  }
  const used = process.cpuUsage(cpu);
  return { cpuMs: (used.user + used.system) / 1000, utterances };
}

export async function benchVad(rounds = 5) {
  // Real speech with pauses, as a room sounds: the monologue, then sentences with silences between.
  const utterance = await fixture('utterance-8k.wav');
  const audio = concatSamples([
    await fixture('monologue-71s.ogg'),
    ...Array.from({ length: 6 }, () => [utterance, silence(4000)]).flat(),
  ]);
  const audioMinutes = audio.length / RATE / 60;
  const silero = await SileroVad.load({
    capDbfs: defaultConfig().vad.energyGateDbfs,
    marginDb: defaultConfig().vad.gateMarginDb,
  });
  const engines: Record<string, Vad> = { silero, energy: new EnergyVad(defaultConfig().vad.energyGateDbfs) };
  const results: Record<string, { cpuMsPerMinute: number; realTimeFactor: number; utterances: number }> = {};
  for (const [name, vad] of Object.entries(engines)) {
    await listen(audio.subarray(0, RATE * 5), vad);
    const runs: { cpuMs: number; utterances: number }[] = [];
    for (let i = 0; i < rounds; i++) runs.push(await listen(audio, vad));
    const cpuMs = median(runs.map((r) => r.cpuMs));
    results[name] = {
      cpuMsPerMinute: round(cpuMs / audioMinutes, 1),
      realTimeFactor: round((audioMinutes * 60_000) / cpuMs, 1),
      utterances: runs[0]?.utterances ?? 0,
    };
  }
  await silero.close();
  console.log(
    `\nListening: VAD + segmenter CPU time per minute of audio (one core, ${round(audioMinutes * 60, 1)} s of real speech, median of ${rounds})`,
  );
  console.log(
    table([
      ['VAD', 'CPU ms / audio minute', 'real-time factor', 'utterances found', 'target >= 50x'],
      ...Object.entries(results).map(([n, r]) => [
        n,
        r.cpuMsPerMinute,
        `${r.realTimeFactor}x`,
        r.utterances,
        r.realTimeFactor >= 50 ? 'met' : 'MISSED',
      ]),
    ]),
  );
  const path = writeResult('vad', { audioSeconds: round(audioMinutes * 60, 1), rounds, results });
  console.log(`wrote ${path}`);
}
