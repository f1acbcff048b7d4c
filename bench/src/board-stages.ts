/**
 * (d) The listening path's CPU split by stage: the real classes of one build (loaded from its
 * dist, so that the build before can be measured beside the build after), run in a process of
 * their own on a worker thread, as hark's listening thread runs (the build's V8 settings and the
 * units' environment, set before the thread starts), over the audio the room run played,
 * 512-sample frames one at a time as from a microphone, each stage on its own: the echo canceller
 * (hark's cancelEcho, nothing played), Silero VAD, the live wake-word detector. Process CPU time
 * (all threads, onnxruntime's too) over the audio's length.
 *
 * Speech is measured twice: as the first speech a fresh hark hears (V8 and onnxruntime still
 * compiling and planning what speech runs: a cost paid once), and steady, as a daemon hears it
 * after other speech.
 */
import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Subject } from 'rxjs';
import type * as EchoModule from '../../dist/audio/echo/echo-canceller.js';
import type * as ConfigModule from '../../dist/config/schema.js';
import type * as CancelEchoModule from '../../dist/pipeline/cancel-echo.js';
import type * as SileroModule from '../../dist/listen/silero-vad.js';
import type * as WakeModule from '../../dist/listen/wake/openwakeword.js';
import type * as WakeSettingsModule from '../../dist/listen/wake/wake-settings.js';
import type * as LoggerModule from '../../dist/system/logger.js';
import type { Frame } from '../../dist/audio/frames.js';
import { AS_THE_UNITS, type Build } from './board-hark.js';
import { room } from './board-audio.js';
import { RATE } from './wake-audio.js';

const FRAME = 512;
const FRAME_MS = (FRAME / RATE) * 1000;
const WARM_UP_MS = 3000;

/** The audio each figure is measured over; `before`: other speech heard first, for the steady figure. */
export interface StageAudio {
  silence: Int16Array;
  speech: Int16Array;
  before: Int16Array;
}

/** % of one core per stage: in a quiet room, in the first speech heard, and in speech heard after other speech. */
export interface StageSplit {
  silence: StageCpu;
  speech: StageCpu;
  steady: StageCpu;
}

export type Stage = 'echo canceller' | 'Silero VAD' | 'wake word';
export const STAGES: Stage[] = ['echo canceller', 'Silero VAD', 'wake word'];

/** % of one core per stage. */
export type StageCpu = Record<Stage, number>;

/** One build's modules, by path: types from this checkout's build (the same classes, maybe older). */
async function modules(build: Build) {
  const load = <T>(path: string) => import(join(build.root, 'dist', path)) as Promise<T>;
  // A build from before the wake-word engine moved to listen/wake/ has it in listen/.
  const wakeDir = existsSync(join(build.root, 'dist', 'listen', 'wake')) ? 'listen/wake' : 'listen';
  return {
    config: await load<typeof ConfigModule>('config/schema.js'),
    echo: await load<typeof EchoModule>('audio/echo/echo-canceller.js'),
    cancelEcho: await load<typeof CancelEchoModule>('pipeline/cancel-echo.js'),
    silero: await load<typeof SileroModule>('listen/silero-vad.js'),
    wake: await load<typeof WakeModule>(`${wakeDir}/openwakeword.js`),
    wakeSettings: await load<typeof WakeSettingsModule>(`${wakeDir}/wake-settings.js`),
    logger: await load<typeof LoggerModule>('system/logger.js'),
  };
}

type Modules = Awaited<ReturnType<typeof modules>>;

type Each = (frame: Int16Array, atMs: number) => unknown;

/** Calls `each` on every frame of `heard` and then of `audio`; the CPU of the latter, % of one core. */
async function timed(heard: Int16Array, audio: Int16Array, each: Each): Promise<number> {
  let atMs = 0;
  for (let i = 0; i + FRAME <= heard.length; i += FRAME) await each(heard.subarray(i, i + FRAME), (atMs += FRAME_MS));
  const before = process.cpuUsage();
  let frames = 0;
  for (let i = 0; i + FRAME <= audio.length; i += FRAME, frames++) {
    await each(audio.subarray(i, i + FRAME), (atMs += FRAME_MS));
  }
  const used = process.cpuUsage(before);
  return ((used.user + used.system) / 1000 / (frames * FRAME_MS)) * 100;
}

async function echoStage(m: Modules, heard: Int16Array, audio: Int16Array): Promise<number> {
  const config = m.config.defaultConfig();
  const canceller = await m.echo.AcousticEchoCanceller.load({
    ...config.echo,
    sampleRateHz: RATE,
    frameSamples: m.echo.ECHO_FRAME_SAMPLES,
  });
  const frames = new Subject<Frame>();
  const subscription = frames.pipe(m.cancelEcho.cancelEcho(canceller, RATE, m.logger.silentLogger)).subscribe();
  try {
    return await timed(heard, audio, (samples, atMs) => frames.next({ samples, capturedAt: atMs }));
  } finally {
    subscription.unsubscribe();
    canceller.close();
  }
}

async function sileroStage(m: Modules, heard: Int16Array, audio: Int16Array): Promise<number> {
  const { vad } = m.config.defaultConfig();
  const silero = await m.silero.SileroVad.load({ capDbfs: vad.energyGateDbfs, marginDb: vad.gateMarginDb });
  try {
    return await timed(heard, audio, (frame) => silero.probability(frame));
  } finally {
    await silero.close();
  }
}

async function wakeStage(m: Modules, heard: Int16Array, audio: Int16Array): Promise<number> {
  const { wake } = m.config.defaultConfig();
  const detector = await m.wake.OpenWakeWord.load({ ...wake, ...m.wakeSettings.LIVE_DETECTOR });
  try {
    return await timed(heard, audio, async (frame) => {
      detector.push(frame);
      await detector.drain();
    });
  } finally {
    await detector.close();
  }
}

/** Each stage's CPU over `audio` (16 kHz) after `heard`, for one build, each stage a fresh instance. */
async function stageCpu(m: Modules, heard: Int16Array, audio: Int16Array): Promise<StageCpu> {
  return {
    'echo canceller': await echoStage(m, heard, audio),
    'Silero VAD': await sileroStage(m, heard, audio),
    'wake word': await wakeStage(m, heard, audio),
  };
}

/** Every figure of the split for one build, in this order: silence, the first speech, steady speech. */
export async function stageSplit(build: Build, audio: StageAudio): Promise<StageSplit> {
  const m = await modules(build);
  const warmUp = room(WARM_UP_MS);
  const silence = await stageCpu(m, warmUp, audio.silence);
  const speech = await stageCpu(m, warmUp, audio.speech);
  const heard = new Int16Array(audio.before.length + 2 * warmUp.length);
  heard.set(warmUp);
  heard.set(audio.before, warmUp.length);
  heard.set(warmUp, warmUp.length + audio.before.length);
  return { silence, speech, steady: await stageCpu(m, heard, audio.speech) };
}

/** The split for one build, in a process of its own. */
export function stageSplitApart(build: Build, audio: StageAudio): Promise<StageSplit> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./board-stages-run.js', import.meta.url)), [build.root], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
      env: { ...process.env, ...AS_THE_UNITS },
    });
    child.once('message', (m) => resolve(m as StageSplit));
    child.once('error', reject);
    child.once(
      'exit',
      (code) => code !== 0 && reject(new Error(`the stage split of ${build.root} exited with ${code}`)),
    );
    child.send(audio);
  });
}
