import { tap } from 'rxjs';
/**
 * Barge-in in real time: hark is speaking a long reply when the user talks over it. Time from
 * the onset of the interrupting speech to playback stopped, measured from the true onset
 * (where Silero first hears speech in the clip at the normal threshold) and from the onset
 * hark detected (with the raised threshold it uses while speaking).
 */
import { defaultConfig } from '../../dist/config/schema.js';
import { VAD_FRAME_MS } from '../../dist/listen/vad.js';
import { concatSamples, silence, speechClip } from './fixtures.js';
import { runToEnd, samplesSource, startLoop } from './loop-harness.js';
import { median, round, table, writeResult } from './stats.js';

const LONG_REPLY =
  'The tallest mountain on Earth is Mount Everest. It rises eight thousand eight hundred and forty nine metres above the sea. ' +
  'Climbers from all over the world try to reach its summit every spring.';

export async function benchBargeIn(cycles = 6) {
  const config = defaultConfig();
  const { samples: clip, onsetMs: clipOnsetMs } = await speechClip();
  const cycle = [clip, silence(2200), clip, silence(4000)];
  const input = concatSamples([silence(500), ...Array.from({ length: cycles }, () => cycle).flat()]);
  const cycleMs = (cycle.reduce((sum, p) => sum + p.length, 0) / 16000) * 1000;
  const interruptionStartMs = (i: number): number => 500 + i * cycleMs + (clip.length / 16000) * 1000 + 2200;

  const loop = await startLoop({
    timing: { ttftMs: 100, tokensPerSecond: 10, ttsFirstByteMs: 80, ttsRealtimeFactor: 1 },
    source: samplesSource(input),
    realtime: true,
  });
  const detected: { onsetMs: number; onsetToStopMs: number | undefined }[] = [];
  loop.events = loop.events.pipe(tap((event) => event.type === 'barge-in' && detected.push(event)));
  for (let i = 0; i < cycles; i++) {
    await loop.sim.transcript('Tell me about the tallest mountain.', 'Stop.');
    await loop.sim.reply({ text: LONG_REPLY }, { text: 'OK.', tokensPerSecond: 1000 });
  }
  await runToEnd(loop);
  await loop.close();
  const started = loop.inputStartedAt() ?? 0;
  const interrupted = loop.outcomes.filter((o) => o.interrupted);
  const fromTrue = interrupted.map((o, i) => (o.stoppedAt ?? NaN) - (started + interruptionStartMs(i) + clipOnsetMs));
  const fromDetected = detected.map((d) => d.onsetToStopMs ?? NaN);
  const minimum = config.bargeIn.minSpeechMs;
  const target = minimum + 50;
  console.log(
    `\nBarge-in: speech onset -> playback stopped (${interrupted.length} of ${cycles} replies interrupted; minimum speech ${minimum} ms, frames of ${VAD_FRAME_MS} ms)`,
  );
  console.log(
    table([
      ['measured from', 'median ms', 'min ms', 'max ms', `target <= ${target} ms`],
      ...[
        ['true onset (where Silero first scores 0.5; within a frame)', fromTrue],
        [`detected onset (threshold ${config.vad.speakingStartThreshold} while speaking)`, fromDetected],
      ].map(([label, values]) => {
        const v = values as number[];
        return [
          label as string,
          round(median(v), 1),
          round(Math.min(...v), 1),
          round(Math.max(...v), 1),
          median(v) <= target ? 'met' : 'MISSED',
        ];
      }),
    ]),
  );
  const path = writeResult('barge-in', {
    cycles,
    minimumMs: minimum,
    targetMs: target,
    fromTrueOnsetMs: fromTrue,
    fromDetectedOnsetMs: fromDetected,
  });
  console.log(`wrote ${path}`);
}
