import { spawnChild } from '../system/spawn.js';

/** The volume of hark's output, 0..100, and whether it is muted. */
export interface VolumeState {
  percent: number;
  muted: boolean;
}

/** A volume control: a system mixer, or hark's own playback gain. */
export interface VolumeControl {
  /** wpctl, pactl, amixer or gain: said in the tool's answer and the log. */
  readonly name: string;
  /** A mixer's setting outlives the process that made it; hark's own gain lives only in its process. */
  readonly lasts: boolean;
  get(): Promise<VolumeState>;
  set(percent: number): Promise<VolumeState>;
  mute(muted: boolean): Promise<VolumeState>;
}

export interface CommandResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a mixer command (through spawn.ts, with its allow-listed environment); never throws for a bad exit. */
export type RunCommand = (command: string, args: string[]) => Promise<CommandResult>;

export const runCommand: RunCommand = (command, args) =>
  new Promise((resolve) => {
    const child = spawnChild(command, args, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 3000 });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (error) => resolve({ status: null, stdout, stderr: error.message }));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });

async function ok(run: RunCommand, command: string, args: string[]): Promise<string> {
  const result = await run(command, args);
  if (result.status !== 0) {
    const why = result.stderr.trim().split('\n')[0] || `exit status ${String(result.status)}`;
    throw new Error(`${command} ${args.join(' ')}: ${why}`);
  }
  return result.stdout;
}

const clamp = (percent: number): number => Math.max(0, Math.min(100, Math.round(percent)));

/** PipeWire's wpctl, on the default sink (wpctl addresses nodes by id; `@DEFAULT_AUDIO_SINK@` is the one hark plays to). */
export function wpctl(run: RunCommand = runCommand, target = '@DEFAULT_AUDIO_SINK@'): VolumeControl {
  const get = async (): Promise<VolumeState> => {
    const out = await ok(run, 'wpctl', ['get-volume', target]);
    const match = /Volume:\s*([\d.]+)/.exec(out);
    if (!match) throw new Error(`wpctl get-volume: unexpected answer: ${out.trim()}`);
    return { percent: clamp(Number(match[1]) * 100), muted: /\[MUTED\]/.test(out) };
  };
  return {
    name: 'wpctl',
    lasts: true,
    get,
    async set(percent) {
      await ok(run, 'wpctl', ['set-volume', target, (clamp(percent) / 100).toFixed(2)]);
      return get();
    },
    async mute(muted) {
      await ok(run, 'wpctl', ['set-mute', target, muted ? '1' : '0']);
      return get();
    },
  };
}

/** PulseAudio's (or pipewire-pulse's) pactl, on the sink hark plays to. */
export function pactl(run: RunCommand = runCommand, sink = '@DEFAULT_SINK@'): VolumeControl {
  const get = async (): Promise<VolumeState> => {
    const volume = await ok(run, 'pactl', ['get-sink-volume', sink]);
    const mute = await ok(run, 'pactl', ['get-sink-mute', sink]);
    const match = /(\d+)%/.exec(volume);
    if (!match) throw new Error(`pactl get-sink-volume: unexpected answer: ${volume.trim()}`);
    return { percent: clamp(Number(match[1])), muted: /Mute:\s*yes/i.test(mute) };
  };
  return {
    name: 'pactl',
    lasts: true,
    get,
    async set(percent) {
      await ok(run, 'pactl', ['set-sink-volume', sink, `${clamp(percent)}%`]);
      return get();
    },
    async mute(muted) {
      await ok(run, 'pactl', ['set-sink-mute', sink, muted ? '1' : '0']);
      return get();
    },
  };
}

/** Simple controls that are the output's volume, in the order they are looked for. */
const OUTPUT_CONTROLS = ['Master', 'PCM', 'Speaker', 'Headphone', 'Digital', 'HDMI'];

/** ALSA's amixer on the card hark plays to (from `plughw:CARD=x,DEV=0`, `hw:1,0`; else the default). */
export function amixer(run: RunCommand = runCommand, device: string | null = null): VolumeControl {
  const card = alsaCard(device);
  const base = card === undefined ? [] : ['-c', card];
  let control: string | undefined;
  const find = async (): Promise<string> => {
    if (control) return control;
    const listed = [...(await ok(run, 'amixer', [...base, 'scontrols'])).matchAll(/'([^']+)'/g)].map((m) => m[1] ?? '');
    control = OUTPUT_CONTROLS.find((c) => listed.includes(c)) ?? listed[0];
    if (!control) throw new Error('amixer: the card has no mixer control');
    return control;
  };
  const read = (out: string): VolumeState => {
    const match = /\[(\d+)%\]/.exec(out);
    if (!match) throw new Error(`amixer: no volume in its answer: ${out.trim().split('\n')[0] ?? ''}`);
    return { percent: clamp(Number(match[1])), muted: /\[off\]/.test(out) };
  };
  return {
    name: 'amixer',
    lasts: true,
    get: async () => read(await ok(run, 'amixer', [...base, 'sget', await find()])),
    set: async (percent) => read(await ok(run, 'amixer', [...base, 'sset', await find(), `${clamp(percent)}%`])),
    mute: async (muted) => read(await ok(run, 'amixer', [...base, 'sset', await find(), muted ? 'mute' : 'unmute'])),
  };
}

export function alsaCard(device: string | null): string | undefined {
  if (!device) return undefined;
  return /CARD=([^,]+)/.exec(device)?.[1] ?? /^(?:plug)?hw:(\w+)/.exec(device)?.[1];
}

/** Something whose output level hark sets itself (the player: its samples are scaled). */
export interface PlaybackGain {
  gain: number;
}

/** hark's own playback gain, 0..100 % of full scale. */
export function gainControl(player: PlaybackGain): VolumeControl {
  let level = clamp(player.gain * 100);
  let muted = false;
  const state = (): VolumeState => ({ percent: level, muted });
  const apply = (): VolumeState => {
    player.gain = muted ? 0 : level / 100;
    return state();
  };
  return {
    name: 'gain',
    lasts: false,
    get: () => Promise.resolve(state()),
    set: (percent) => {
      level = clamp(percent);
      muted = false;
      return Promise.resolve(apply());
    },
    mute: (on) => {
      muted = on;
      return Promise.resolve(apply());
    },
  };
}

/** The mixer, and hark's gain when the mixer fails (no such command, no sound server): said in `name`. */
export function withFallback(
  primary: VolumeControl,
  fallback: VolumeControl,
  onFallback: (error: Error) => void,
): VolumeControl {
  let failedOver = false;
  const attempt = async (op: (control: VolumeControl) => Promise<VolumeState>): Promise<VolumeState> => {
    if (!failedOver) {
      try {
        return await op(primary);
      } catch (error) {
        failedOver = true;
        onFallback(error as Error);
      }
    }
    return op(fallback);
  };
  return {
    get name() {
      return failedOver ? fallback.name : primary.name;
    },
    get lasts() {
      return failedOver ? fallback.lasts : primary.lasts;
    },
    get: () => attempt((c) => c.get()),
    set: (percent) => attempt((c) => c.set(percent)),
    mute: (muted) => attempt((c) => c.mute(muted)),
  };
}
