/**
 * The interruptions without the room: each clip by itself, as recorded (no echo, no echo
 * canceller, no noise added), through Silero, hark's segmenter and its barge-in judge with hark
 * speaking, at four places of the clip's onset on the 32 ms frame grid. From the labelled onset
 * to the pause and to the confirmation: what the listener's own rules take on clean recordings,
 * with no echo canceller in the way.
 */
import { defaultConfig, type HarkConfig } from '../../dist/config/schema.js';
import { BargeInJudge } from '../../dist/dialog/barge-in.js';
import { Segmenter } from '../../dist/listen/segmenter.js';
import { SileroVad } from '../../dist/listen/silero-vad.js';
import { VAD_FRAME_SAMPLES } from '../../dist/listen/vad.js';
import { ALL_SPEECH, SPEECH_DBFS, labelledClip } from './room-audio.js';

const RATE = 16000;
/** Offsets of the onset from a frame boundary, ms: the room places clips anywhere on the grid. */
const PHASES_MS = [0, 8, 16, 24];
/** Audio before the onset that the VAD hears first, and how long after it the judge is followed. */
const BEFORE_MS = 1000;
const AFTER_MS = 1500;

export interface AloneRun {
  clip: string;
  phaseMs: number;
  pausedMs?: number;
  confirmedMs?: number;
}

export async function clipsAlone(configure?: (config: HarkConfig) => void): Promise<AloneRun[]> {
  const config = defaultConfig();
  configure?.(config);
  const vad = await SileroVad.load({ capDbfs: config.vad.energyGateDbfs, marginDb: config.vad.gateMarginDb });
  const runs: AloneRun[] = [];
  try {
    for (const clip of ALL_SPEECH.map((name) => labelledClip(name, SPEECH_DBFS))) {
      const onsetMs = clip.speech[0]?.startMs ?? 0;
      for (const phaseMs of PHASES_MS) {
        const first = Math.round((Math.max(0, onsetMs - BEFORE_MS) / 1000) * RATE) + (phaseMs / 1000) * RATE;
        const fromOnsetMs = (at: number) => ((first + at) / RATE) * 1000 - onsetMs;
        const run: AloneRun = { clip: clip.name, phaseMs };
        vad.reset();
        const segmenter = new Segmenter({ ...config.vad, sampleRateHz: RATE });
        const judge = new BargeInJudge(config.bargeIn);
        const end = Math.min(clip.samples.length, first + ((BEFORE_MS + AFTER_MS) / 1000) * RATE);
        for (
          let at = 0;
          first + at + VAD_FRAME_SAMPLES <= end && run.confirmedMs === undefined;
          at += VAD_FRAME_SAMPLES
        ) {
          const samples = clip.samples.subarray(first + at, first + at + VAD_FRAME_SAMPLES);
          const frame = { samples, probability: await vad.probability(samples), capturedAt: 0 };
          for (const event of segmenter.push(frame, { speaking: true, listening: true })) {
            const phase = judge.push(event, 'speaking');
            const heardAt = fromOnsetMs(at + VAD_FRAME_SAMPLES);
            if (phase === 'paused' && heardAt > 0) run.pausedMs ??= heardAt;
            if (phase === 'confirmed' && heardAt > 0) run.confirmedMs = heardAt;
          }
        }
        runs.push(run);
      }
    }
  } finally {
    await vad.close();
  }
  return runs;
}
