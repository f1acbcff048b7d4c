import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resample, samplesOf } from '../../audio/pcm.js';
import { readPcm16Mono } from '../../audio/wav-header.js';
import type { HarkConfig } from '../../config/schema.js';
import { OpenWakeWord } from '../../listen/wake/openwakeword.js';
import { SileroVad } from '../../listen/silero-vad.js';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE_HZ } from '../../listen/vad.js';
import { PACKAGE_ROOT } from '../../system/package-paths.js';
import { fail, note, ok, skip, type CheckResult } from './doctor-result.js';

const CHECK = 'listening cost';
/** Speech for the models to hear: the bundled demo's question. */
const SPEECH = join(PACKAGE_ROOT, 'assets', 'demo', 'question.wav');
/** Over this share of a core in speech, the rest (echo canceller, replies, player) is left little: a note. */
const NOTE_ABOVE_PERCENT = 25;
/** Over this, hark falls behind the microphone while someone speaks: a failure. */
const FAIL_ABOVE_PERCENT = 60;
const FIX =
  'on a small board: wake.engine: phrase, or vad.engine: energy (docs/raspberry-pi.md, "A small board"); `hark doctor` again to see the cost';

/**
 * What listening costs this machine: how long Silero and the wake word take to hear a second of
 * speech, in percent of that second. Time as it passes, not CPU time: a slow core and a capped or
 * busy one fall behind alike.
 */
export async function measureListeningCost(config: Pick<HarkConfig, 'vad' | 'wake'>): Promise<number | undefined> {
  const silero = config.vad.engine === 'silero';
  const wake = config.wake.engine === 'openwakeword';
  if (!silero && !wake) return undefined;
  const { pcm, sampleRateHz } = readPcm16Mono(readFileSync(SPEECH));
  const speech = resample(samplesOf(pcm), sampleRateHz, VAD_SAMPLE_RATE_HZ);
  const vad = silero
    ? await SileroVad.load({ capDbfs: config.vad.energyGateDbfs, marginDb: config.vad.gateMarginDb })
    : undefined;
  const detector = wake ? await OpenWakeWord.load(config.wake) : undefined;
  try {
    const started = performance.now();
    for (let at = 0; at + VAD_FRAME_SAMPLES <= speech.length; at += VAD_FRAME_SAMPLES) {
      const frame = speech.subarray(at, at + VAD_FRAME_SAMPLES);
      detector?.push(frame);
      await vad?.probability(frame);
    }
    await detector?.drain();
    const tookMs = performance.now() - started;
    return (tookMs / ((speech.length / VAD_SAMPLE_RATE_HZ) * 1000)) * 100;
  } finally {
    await Promise.all([vad?.close(), detector?.close()]);
  }
}

/** The doctor's verdict on a listening cost (percent of real time, in speech). */
export function judgeListeningCost(percent: number | undefined): CheckResult {
  if (percent === undefined) return skip(CHECK, 'neither Silero nor the wake word is configured');
  const detail = `Silero and the wake word take ${percent.toFixed(1)} % of the time to hear speech`;
  if (percent > FAIL_ABOVE_PERCENT) return fail(CHECK, `${detail}: too slow to keep up with the microphone`, FIX);
  if (percent > NOTE_ABOVE_PERCENT) return note(CHECK, `${detail}: little is left for the rest`, FIX);
  return ok(CHECK, detail);
}

export async function checkListeningCost(config: Pick<HarkConfig, 'vad' | 'wake'>): Promise<CheckResult> {
  try {
    return judgeListeningCost(await measureListeningCost(config));
  } catch (error) {
    // The VAD and wake-word rows say what failed to load.
    return skip(CHECK, `not measured: ${(error as Error).message.split('\n')[0]}`);
  }
}
