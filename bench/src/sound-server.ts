import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A user-mode PulseAudio with null sinks standing in for the hardware (the audio tests and the
 * small-board benchmark both run hark through it):
 * - `hark_speaker`: where hark plays (through ALSA's pulse plugin, as on a Pi with a sound server);
 * - `hark_mic_feed` → `hark_mic`: what is played into the feed is what hark's microphone hears;
 * - `hark_mix`: a stereo recording of both on one clock, the feed left and hark's voice right.
 */
export interface SoundServer {
  env: NodeJS.ProcessEnv;
  dir: string;
  close(): Promise<void>;
}

function pactl(env: NodeJS.ProcessEnv, ...args: string[]): boolean {
  return spawnSync('pactl', args, { env, stdio: 'ignore' }).status === 0;
}

export async function startSoundServer(): Promise<SoundServer> {
  const dir = mkdtempSync(join(tmpdir(), 'hark-pulse-'));
  const runtime = join(dir, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const socket = join(dir, 'native');
  writeFileSync(
    join(dir, 'default.pa'),
    [
      `load-module module-native-protocol-unix auth-anonymous=1 socket=${socket}`,
      'load-module module-null-sink sink_name=hark_speaker',
      'load-module module-null-sink sink_name=hark_mic_feed',
      'load-module module-remap-source master=hark_mic_feed.monitor source_name=hark_mic',
      'load-module module-null-sink sink_name=hark_mix channels=2 rate=24000',
      'load-module module-loopback source=hark_mic_feed.monitor sink=hark_mix channels=1 channel_map=front-left remix=false latency_msec=30',
      'load-module module-loopback source=hark_speaker.monitor sink=hark_mix channels=1 channel_map=front-right remix=false latency_msec=30',
      'set-default-sink hark_speaker',
      'set-default-source hark_mic',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'asound.conf'), 'pcm.!default { type pulse }\nctl.!default { type pulse }\n');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: dir,
    XDG_RUNTIME_DIR: runtime,
    PULSE_SERVER: `unix:${socket}`,
    ALSA_CONFIG_PATH: `/usr/share/alsa/alsa.conf:${join(dir, 'asound.conf')}`,
  };
  const server: ChildProcess = spawn(
    'pulseaudio',
    [
      '-n',
      '-F',
      join(dir, 'default.pa'),
      '--daemonize=no',
      '--exit-idle-time=-1',
      '--use-pid-file=no',
      '--disallow-exit',
      '--log-target=stderr',
    ],
    { env, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  server.stderr?.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
  for (let i = 0; i < 100 && !pactl(env, 'info'); i++) await new Promise((r) => setTimeout(r, 100));
  if (!pactl(env, 'info')) {
    server.kill('SIGKILL');
    throw new Error(
      `PulseAudio did not start (apt-get install pulseaudio pulseaudio-utils libasound2-plugins):\n${log}`,
    );
  }
  // A null sink mixes in blocks as long as the latency its clients ask for, and the `speaker`
  // package's ALSA stream asks for 0.5 s: the loopback from its monitor into the microphone
  // then took hark's voice in bursts it could not follow, and the echo path jumped by up to
  // 110 ms from one sentence to the next, or was lost (measured against what the player said
  // it played), as no room does. A sound card plays in short periods on its own clock; a
  // silent stream asking for 10 ms keeps the null sink mixing so.
  const keeper = spawn(
    'pacat',
    [
      '--playback',
      '--raw',
      '--format=s16le',
      '--channels=1',
      '--rate=24000',
      '--latency-msec=10',
      '--device=hark_speaker',
      '/dev/zero',
    ],
    { env, stdio: 'ignore' },
  );
  return {
    env,
    dir,
    async close() {
      keeper.kill('SIGTERM');
      server.kill('SIGTERM');
      await exited;
    },
  };
}

/** `parec` of the stereo mix; resolves once audio is flowing (an idle monitor takes a while to start). */
export async function recordMix(server: SoundServer): Promise<{ path: string; stop(): Promise<void> }> {
  const path = join(server.dir, `mix-${Date.now()}.raw`);
  const recorder = spawn(
    'parec',
    ['--device=hark_mix.monitor', '--format=s16le', '--rate=24000', '--channels=2', '--raw', path],
    {
      env: server.env,
      stdio: 'ignore',
    },
  );
  const exited = new Promise<void>((resolve) => recorder.once('exit', () => resolve()));
  for (let i = 0; i < 100 && !(existsSync(path) && statSync(path).size > 9600); i++)
    await new Promise((r) => setTimeout(r, 100));
  return {
    path,
    async stop() {
      recorder.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * How the echo's way back keeps time. A speaker and a microphone in one box play and record on
 * one clock, so the echo comes back with the same delay sample by sample (`fixed`). PulseAudio's
 * loopback by default steers its resampler's rate to hold its latency (`steered`): that bends the
 * echo's timing within every second, and a linear filter fitted to a second of it took 1 to 4 dB
 * out (against 50 to 77 dB with `fixed`) for its first 10 s and after each correction, as no room
 * does. The audio tests keep it as the harder case for hark's own voice.
 */
export type EchoClock = 'fixed' | 'steered';

/**
 * What plays on `from` is heard in `into` as well, `gainDb` louder (or quieter) and `latencyMs`
 * later: the speaker in the same box as the microphone. Returns a function that takes the path
 * away again.
 */
export function feedBack(
  server: SoundServer,
  from: string,
  into: string,
  gainDb = 0,
  latencyMs = 60,
  clock: EchoClock = 'steered',
): () => void {
  const steering = clock === 'fixed' ? ['adjust_time=0'] : [];
  const loaded = spawnSync(
    'pactl',
    [
      'load-module',
      'module-loopback',
      `source=${from}.monitor`,
      `sink=${into}`,
      `latency_msec=${latencyMs}`,
      ...steering,
    ],
    { env: server.env, encoding: 'utf8' },
  );
  const module = loaded.stdout.trim();
  if (loaded.status !== 0 || !module) throw new Error(`pactl load-module module-loopback failed: ${loaded.stderr}`);
  // The loopback's own stream, by the module that owns it, not the first loopback into `into`.
  const inputs = spawnSync('pactl', ['list', 'sink-inputs'], { env: server.env, encoding: 'utf8' }).stdout;
  const input = inputs
    .split(/^Sink Input #/m)
    .find((block) => new RegExp(`^\\s*Owner Module: ${module}$`, 'm').test(block))
    ?.match(/^\d+/)?.[0];
  if (!input || !pactl(server.env, 'set-sink-input-volume', input, `${gainDb}dB`)) {
    throw new Error(`could not set the volume of the loopback into ${into} (module ${module})`);
  }
  return () => void pactl(server.env, 'unload-module', module);
}

export function play(server: SoundServer, sink: string, file: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const player = spawn('paplay', [`--device=${sink}`, file], { env: server.env, stdio: 'ignore' });
    player.once('error', reject);
    player.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`paplay exited ${code}`))));
  });
}

/** The mix so far: the microphone feed (left) and hark's voice (right), 24 kHz. */
export function readMix(path: string): { mic: Int16Array; hark: Int16Array } {
  const bytes = readFileSync(path);
  const all = new Int16Array(bytes.buffer, bytes.byteOffset, Math.floor(bytes.length / 4) * 2);
  const mic = new Int16Array(all.length / 2);
  const hark = new Int16Array(all.length / 2);
  for (let i = 0; i < mic.length; i++) {
    mic[i] = all[2 * i] as number;
    hark[i] = all[2 * i + 1] as number;
  }
  return { mic, hark };
}

export const MIX_RATE = 24000;

/** RMS of consecutive 10 ms windows. */
export function envelope(samples: Int16Array): number[] {
  const window = MIX_RATE / 100;
  const out: number[] = [];
  for (let at = 0; at + window <= samples.length; at += window) {
    let sum = 0;
    for (let i = at; i < at + window; i++) sum += (samples[i] as number) ** 2;
    out.push(Math.sqrt(sum / window));
  }
  return out;
}
