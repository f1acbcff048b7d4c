/**
 * Echo cancellation on the simulated room: hark plays a reply of real speech (24 kHz, through
 * a tapped player on a virtual clock), the room brings it back to the microphone at a level
 * relative to the user's speech, after a delay hark is not told that drifts slowly. Figures:
 * echo return loss enhancement from 2 s after the reply starts to its end, the delay
 * estimator's error, the user's speech kept through the canceller while both talk, and the
 * canceller's CPU time (alone; VAD and segmenter are benchmarked in `vad`).
 */
import { AcousticEchoCanceller, ECHO_FRAME_SAMPLES } from '../../dist/audio/echo/echo-canceller.js';
import { bufferOf, resample } from '../../dist/audio/pcm.js';
import { ClockedPlayer } from '../../dist/audio/player.js';
import { defaultConfig } from '../../dist/config/schema.js';
import { Room, atLevel } from '../dist/room/test/room/room.js';
import { asyncScheduler } from 'rxjs';
import { concatSamples, fixture } from './fixtures.js';
import { median, percentile, round, table, writeResult } from './stats.js';

const RATE = 16000;
const FRAME = ECHO_FRAME_SAMPLES;
const SPEECH_DBFS = -26;
const LEAD_IN_MS = 1000;
const CONVERGENCE_MS = 2000;
const ERLE_TARGET_DB = 25;
const DELAY_TARGET_MS = 2;
const CPU_TARGET_PERCENT = 5;

class SilentPlayer extends ClockedPlayer {
  protected output(): void {}
  protected discard(): void {}
  async close(): Promise<void> {}
}

interface Run {
  erleDb: number;
  erleFirst2sDb: number;
  delayErrorMs: number;
  firstEstimateMs: number;
  cpuMs: number;
  activeCpuMs: number;
  audioMs: number;
  activeMs: number;
  userKeptDb: number | null;
}

function energy(samples: ArrayLike<number>, from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += ((samples[i] as number) / 32768) ** 2;
  return sum;
}

async function runOnce(reply: Int16Array, room: Room, user?: { samples: Int16Array; atMs: number }): Promise<Run> {
  const aec = await AcousticEchoCanceller.load({ ...defaultConfig().echo, sampleRateHz: RATE, frameSamples: FRAME });
  let now = 0;
  const player = new SilentPlayer(24000, { now: () => now, scheduler: asyncScheduler });
  player.listen(aec.reference);
  now = LEAD_IN_MS;
  player.write(bufferOf(resample(reply, RATE, 24000)));
  const replyStart = (LEAD_IN_MS / 1000) * RATE;
  const played = new Int16Array(replyStart + reply.length + RATE);
  played.set(reply, replyStart);
  const near = new Int16Array(played.length);
  if (user) near.set(user.samples, (user.atMs / 1000) * RATE);
  const { mic } = room.hear(played, user ? near : undefined);
  const out = new Int16Array(mic.length);
  let cpuMs = 0;
  let activeCpuMs = 0;
  let activeFrames = 0;
  let firstEstimateMs = NaN;
  for (let at = 0; at + FRAME <= mic.length; at += FRAME) {
    now = (at / RATE) * 1000;
    const before = process.cpuUsage();
    out.set(aec.cancel(mic.subarray(at, at + FRAME), now), at);
    const used = process.cpuUsage(before);
    const ms = (used.user + used.system) / 1000;
    cpuMs += ms;
    const state = aec.state();
    if (state.active) {
      activeCpuMs += ms;
      activeFrames++;
    }
    if (Number.isNaN(firstEstimateMs) && state.delayConfidence !== null) firstEstimateMs = now - LEAD_IN_MS;
  }
  const replyEnd = replyStart + reply.length;
  const from = replyStart + (CONVERGENCE_MS / 1000) * RATE;
  let userKeptDb: number | null = null;
  if (user) {
    const start = (user.atMs / 1000) * RATE;
    const end = start + user.samples.length;
    userKeptDb = 10 * Math.log10(energy(out, start, end) / energy(near, start, end));
  }
  const lastDelay = room.delayAt(replyEnd);
  return {
    erleDb: 10 * Math.log10(energy(mic, from, replyEnd) / energy(out, from, replyEnd)),
    erleFirst2sDb: 10 * Math.log10(energy(mic, replyStart, from) / energy(out, replyStart, from)),
    delayErrorMs: Math.abs(aec.state().delayMs - lastDelay),
    firstEstimateMs,
    cpuMs,
    activeCpuMs,
    audioMs: (mic.length / RATE) * 1000,
    activeMs: ((activeFrames * FRAME) / RATE) * 1000,
    userKeptDb,
  };
}

const stat = (values: number[]) => ({
  median: round(median(values), 1),
  p90: round(percentile(values, 90), 1),
  min: round(Math.min(...values), 1),
});

export async function benchAec(seeds = 3) {
  const clips = await Promise.all(
    ['speech-a', 'speech-e', 'speech-d', 'speech-b', 'speech-c'].map((n) => fixture(`speech/${n}.wav`)),
  );
  const user = atLevel(await fixture('speech/speech-b.wav'), SPEECH_DBFS);
  // hark's reply: the clips in a different order for each seed (about 18 s of real speech).
  const replyFor = (seed: number) =>
    atLevel(concatSamples(clips.map((_, i) => clips[(i + seed) % clips.length] as Int16Array)), SPEECH_DBFS);
  const room = (seed: number, delayMs: number, echoDb: number) =>
    new Room({
      seed,
      delayMs,
      echoDb,
      driftMs: 3,
      driftPeriodMs: 90_000,
      rt60Ms: 300,
      snrDb: 45,
      speechLevelDbfs: SPEECH_DBFS,
      playedLevelDbfs: SPEECH_DBFS,
    });

  const rows: Record<string, { erleDb: ReturnType<typeof stat>; delayErrorMs: ReturnType<typeof stat> }> = {};
  const all: Run[] = [];
  for (const echoDb of [-10, 0, 6]) {
    for (const delayMs of [30, 150, 300]) {
      const runs: Run[] = [];
      for (let seed = 1; seed <= seeds; seed++) runs.push(await runOnce(replyFor(seed), room(seed, delayMs, echoDb)));
      all.push(...runs);
      rows[`${echoDb} dB, ${delayMs} ms`] = {
        erleDb: stat(runs.map((r) => r.erleDb)),
        delayErrorMs: stat(runs.map((r) => r.delayErrorMs)),
      };
    }
  }
  const doubleTalk: Run[] = [];
  for (let seed = 1; seed <= seeds; seed++) {
    doubleTalk.push(await runOnce(replyFor(seed), room(seed, 150, 0), { samples: user, atMs: LEAD_IN_MS + 6000 }));
  }

  const cpu = all.reduce((s, r) => s + r.cpuMs, 0);
  const audio = all.reduce((s, r) => s + r.audioMs, 0);
  const activeCpu = all.reduce((s, r) => s + r.activeCpuMs, 0);
  const active = all.reduce((s, r) => s + r.activeMs, 0);
  const summary = {
    erleDb: stat(all.map((r) => r.erleDb)),
    erleFirst2sDb: stat(all.map((r) => r.erleFirst2sDb)),
    delayErrorMs: stat(all.map((r) => r.delayErrorMs)),
    firstEstimateMs: stat(all.map((r) => r.firstEstimateMs)),
    userKeptDb: stat(doubleTalk.map((r) => r.userKeptDb ?? NaN)),
    doubleTalkErleDb: stat(doubleTalk.map((r) => r.erleDb)),
    cpuPercentWhileSpeaking: round((activeCpu / active) * 100, 2),
    realTimeFactorWhileSpeaking: round(active / activeCpu, 1),
    cpuPercentOverall: round((cpu / audio) * 100, 2),
  };

  console.log(
    `\nEcho cancellation (speexdsp MDF + residual suppression) on the simulated room: real speech as hark's reply, delay unknown to hark and drifting ±3 ms, RT60 300 ms, noise 45 dB below speech; ${seeds} seeds per row`,
  );
  console.log(
    table([
      [
        'echo vs user speech, delay',
        'ERLE after 2 s median / p90 / min dB',
        `target >= ${ERLE_TARGET_DB}`,
        'delay error median / p90 ms',
        `target <= ${DELAY_TARGET_MS}`,
      ],
      ...Object.entries(rows).map(([name, r]) => [
        name,
        `${r.erleDb.median} / ${r.erleDb.p90} / ${r.erleDb.min}`,
        r.erleDb.median >= ERLE_TARGET_DB ? 'met' : 'MISSED',
        `${r.delayErrorMs.median} / ${r.delayErrorMs.p90}`,
        r.delayErrorMs.median <= DELAY_TARGET_MS ? 'met' : 'MISSED',
      ]),
    ]),
  );
  console.log(
    table([
      ['figure (all rows)', 'median', 'p90', 'target'],
      ['ERLE after 2 s, dB', summary.erleDb.median, summary.erleDb.p90, `>= ${ERLE_TARGET_DB}`],
      ['ERLE in the first 2 s, dB', summary.erleFirst2sDb.median, summary.erleFirst2sDb.p90, '-'],
      [
        'first delay estimate after the reply starts, ms',
        summary.firstEstimateMs.median,
        summary.firstEstimateMs.p90,
        '-',
      ],
      [
        'delay error at the end of the reply, ms',
        summary.delayErrorMs.median,
        summary.delayErrorMs.p90,
        `<= ${DELAY_TARGET_MS}`,
      ],
      [
        'user speech through the canceller while hark talks (0 dB echo), dB',
        summary.userKeptDb.median,
        summary.userKeptDb.p90,
        '-',
      ],
      [
        'canceller CPU while hark speaks, % of one core',
        summary.cpuPercentWhileSpeaking,
        `(${summary.realTimeFactorWhileSpeaking}x real time)`,
        `<= ${CPU_TARGET_PERCENT} % (${summary.cpuPercentWhileSpeaking <= CPU_TARGET_PERCENT ? 'met' : 'MISSED'})`,
      ],
      ['canceller CPU overall (idle frames pass through), % of one core', summary.cpuPercentOverall, '', '-'],
    ]),
  );
  const path = writeResult('aec', { seeds, rows, summary });
  console.log(`wrote ${path}`);
}
