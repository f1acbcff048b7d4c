/**
 * (d) The listening path's CPU split by stage: the real classes of one build (loaded from its
 * dist, so that the build before can be measured beside the build after), run in this process
 * over the audio the room run played, 512-sample frames one at a time as from a microphone, each
 * stage on its own: the echo canceller (hark's cancelEcho, nothing played), Silero VAD, the live
 * wake-word detector. Process CPU time (all threads, onnxruntime's too) over the audio's length.
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
import type { Build } from './board-hark.js';
import { room } from './board-audio.js';
import { RATE } from './wake-audio.js';

const FRAME = 512;
const FRAME_MS = (FRAME / RATE) * 1000;
const WARM_UP_MS = 3000;

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

/** Calls `each` on every frame of the room and then of `audio`; the CPU of the latter, % of one core. */
async function timed(audio: Int16Array, each: (frame: Int16Array, atMs: number) => unknown): Promise<number> {
  const warmUp = room(WARM_UP_MS);
  let atMs = 0;
  for (let i = 0; i + FRAME <= warmUp.length; i += FRAME) await each(warmUp.subarray(i, i + FRAME), (atMs += FRAME_MS));
  const before = process.cpuUsage();
  let frames = 0;
  for (let i = 0; i + FRAME <= audio.length; i += FRAME, frames++) {
    await each(audio.subarray(i, i + FRAME), (atMs += FRAME_MS));
  }
  const used = process.cpuUsage(before);
  return ((used.user + used.system) / 1000 / (frames * FRAME_MS)) * 100;
}

async function echoStage(m: Modules, audio: Int16Array): Promise<number> {
  const config = m.config.defaultConfig();
  const canceller = await m.echo.AcousticEchoCanceller.load({
    ...config.echo,
    sampleRateHz: RATE,
    frameSamples: m.echo.ECHO_FRAME_SAMPLES,
  });
  const frames = new Subject<Frame>();
  const subscription = frames.pipe(m.cancelEcho.cancelEcho(canceller, RATE, m.logger.silentLogger)).subscribe();
  try {
    return await timed(audio, (samples, atMs) => frames.next({ samples, capturedAt: atMs }));
  } finally {
    subscription.unsubscribe();
    canceller.close();
  }
}

async function sileroStage(m: Modules, audio: Int16Array): Promise<number> {
  const { vad } = m.config.defaultConfig();
  const silero = await m.silero.SileroVad.load({ capDbfs: vad.energyGateDbfs, marginDb: vad.gateMarginDb });
  try {
    return await timed(audio, (frame) => silero.probability(frame));
  } finally {
    await silero.close();
  }
}

async function wakeStage(m: Modules, audio: Int16Array): Promise<number> {
  const { wake } = m.config.defaultConfig();
  const detector = await m.wake.OpenWakeWord.load({ ...wake, ...m.wakeSettings.LIVE_DETECTOR });
  try {
    return await timed(audio, async (frame) => {
      detector.push(frame);
      await detector.drain();
    });
  } finally {
    await detector.close();
  }
}

/** Each stage's CPU over `audio` (16 kHz), for one build. */
export async function stageCpu(build: Build, audio: Int16Array): Promise<StageCpu> {
  const m = await modules(build);
  return {
    'echo canceller': await echoStage(m, audio),
    'Silero VAD': await sileroStage(m, audio),
    'wake word': await wakeStage(m, audio),
  };
}

/** Each stage's CPU in silence and in speech, for one build, in a process of its own. */
export function stageCpuApart(
  build: Build,
  audio: { silence: Int16Array; speech: Int16Array },
): Promise<{ silence: StageCpu; speech: StageCpu }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./board-stages-run.js', import.meta.url)), [build.root], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      serialization: 'advanced',
    });
    child.once('message', (m) => resolve(m as { silence: StageCpu; speech: StageCpu }));
    child.once('error', reject);
    child.once(
      'exit',
      (code) => code !== 0 && reject(new Error(`the stage split of ${build.root} exited with ${code}`)),
    );
    child.send(audio);
  });
}
