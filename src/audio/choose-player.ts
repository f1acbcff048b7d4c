import { statSync } from 'node:fs';
import { join } from 'node:path';
import { findOnPath } from '../system/find-on-path.js';
import { runChild } from '../system/spawn.js';

/** What `audio.player` may say. */
export type PlayerSetting = 'auto' | 'pw-play' | 'pacat' | 'aplay' | 'speaker' | 'command';

export interface PlayerSettings {
  player: PlayerSetting;
  playerCommand: string;
  playbackDevice: string | null;
}

/** The player hark will use, and why: a command line (with `{rate}`), or the `speaker` package. */
export type PlayerChoice =
  | { kind: 'command'; name: 'pw-play' | 'pacat' | 'aplay' | 'command'; command: string; reason: string }
  | { kind: 'speaker'; device: string | null; reason: string };

/** How the chooser sees the machine; tests give their own. */
export interface SoundProbe {
  /** Where `binary` is on PATH, or undefined. */
  which(binary: string): string | undefined;
  /** Runs a short command; its exit status (undefined if it could not run) and stdout. */
  run(command: string, args: string[]): { status: number | undefined; stdout: string };
  isSocket(path: string): boolean;
  env: NodeJS.ProcessEnv;
}

/** The real machine: PATH lookups and probes run with this environment (PATH, XDG_RUNTIME_DIR, PULSE_*). */
export function systemProbe(env: NodeJS.ProcessEnv = process.env): SoundProbe {
  const passOn: Record<string, string> = {};
  for (const name of ['PATH', 'XDG_RUNTIME_DIR', 'PULSE_SERVER', 'PULSE_RUNTIME_PATH', 'PIPEWIRE_RUNTIME_DIR']) {
    const value = env[name];
    if (value !== undefined) passOn[name] = value;
  }
  return {
    env,
    which: (binary) => findOnPath(binary, env.PATH ?? ''),
    run(command, args) {
      const result = runChild(command, args, { timeout: 2000, env: { ...passOn, LC_ALL: 'C' } });
      return { status: result.status ?? undefined, stdout: result.stdout ?? '' };
    },
    isSocket(path) {
      try {
        return statSync(path).isSocket();
      } catch {
        return false;
      }
    },
  };
}

/**
 * Is a PipeWire daemon answering? `pw-cli info 0` says so the way PipeWire's own tools find it;
 * without pw-cli, its socket ($PIPEWIRE_RUNTIME_DIR or $XDG_RUNTIME_DIR, then $PIPEWIRE_REMOTE or pipewire-0).
 */
export function pipewireRuns(probe: SoundProbe): boolean {
  if (probe.which('pw-cli')) return probe.run('pw-cli', ['info', '0']).status === 0;
  const dir = probe.env.PIPEWIRE_RUNTIME_DIR || probe.env.XDG_RUNTIME_DIR;
  return Boolean(dir) && probe.isSocket(join(dir as string, probe.env.PIPEWIRE_REMOTE || 'pipewire-0'));
}

/** Is a PulseAudio server (or PipeWire's pipewire-pulse) answering? `pactl info`, else its socket. */
export function pulseRuns(probe: SoundProbe): boolean {
  if (probe.which('pactl')) return probe.run('pactl', ['info']).status === 0;
  const server = probe.env.PULSE_SERVER;
  if (server) return server.startsWith('unix:') ? probe.isSocket(server.slice(5)) : true;
  const dir = probe.env.PULSE_RUNTIME_PATH || (probe.env.XDG_RUNTIME_DIR && join(probe.env.XDG_RUNTIME_DIR, 'pulse'));
  return Boolean(dir) && probe.isSocket(join(dir as string, 'native'));
}

/** ALSA device names (`plughw:CARD=x,DEV=0`, `hw:1,0`, `default`) as opposed to sound-server sink names. */
export function isAlsaName(device: string): boolean {
  return device.includes(':') || /^(default|sysdefault|pulse|pipewire|null|dmix|plug|hw|plughw)$/.test(device);
}

const quoted = (word: string): string => `"${word}"`;

/** Low-latency players of raw 16-bit mono PCM on stdin; stopping kills them, which silences them at once. */
export function playerCommand(name: 'pw-play' | 'pacat' | 'aplay', device: string | null, probe: SoundProbe): string {
  switch (name) {
    case 'pw-play': {
      // PipeWire 1.x reads a WAV from "-" unless told --raw; 0.3.x (Debian 12) knows no --raw and reads raw.
      const raw = /--raw\b/.test(probe.run('pw-play', ['--help']).stdout) ? ' --raw' : '';
      const target = device ? ` ${quoted(`--target=${device}`)}` : '';
      return `pw-play${raw} --rate={rate} --channels=1 --format=s16 --latency=20ms${target} -`;
    }
    case 'pacat': {
      // --verbose: it says when it plays and when it runs dry (PlayerBuffer); while it lives it also
      // says how it is doing ~38 times a second, so an idle one is ended (IDLE_END_MS).
      const target = device ? ` ${quoted(`--device=${device}`)}` : '';
      return `pacat --playback --raw --format=s16le --channels=1 --rate={rate} --latency-msec={bufferMs} --verbose --client-name=hark${target}`;
    }
    case 'aplay':
      // aplay's own buffer is as long as the device allows, up to 500 ms: beyond echo.maxDelayMs.
      return `aplay -q -t raw -f S16_LE -c 1 -r {rate} --buffer-time=100000${device ? ` -D ${quoted(device)}` : ''}`;
  }
}

/**
 * The player for these settings on this machine. `auto`: an ALSA device name wins (aplay plays
 * exactly that device); else pw-play when PipeWire answers, pacat when a PulseAudio server does
 * (PipeWire's pipewire-pulse included), else aplay on ALSA's default device.
 */
export function choosePlayer(settings: PlayerSettings, probe: SoundProbe): PlayerChoice {
  const device = settings.playbackDevice;
  const command = (name: 'pw-play' | 'pacat' | 'aplay', reason: string): PlayerChoice => ({
    kind: 'command',
    name,
    command: playerCommand(name, device, probe),
    reason,
  });
  switch (settings.player) {
    case 'speaker':
      return { kind: 'speaker', device, reason: 'audio.player is speaker' };
    case 'command':
      return { kind: 'command', name: 'command', command: settings.playerCommand, reason: 'audio.playerCommand' };
    case 'pw-play':
    case 'pacat':
    case 'aplay':
      return command(settings.player, `audio.player is ${settings.player}`);
    case 'auto':
      break;
  }
  if (device && isAlsaName(device)) return command('aplay', `audio.playbackDevice ${device} is an ALSA device`);
  if (probe.which('pw-play') && pipewireRuns(probe)) return command('pw-play', 'PipeWire answers');
  if (probe.which('pacat') && pulseRuns(probe)) return command('pacat', 'a PulseAudio server answers');
  if (probe.which('aplay')) return command('aplay', 'no sound server answers: ALSA');
  return command('aplay', 'no player found: aplay is in alsa-utils');
}
