/**
 * Every child process hark starts (recorder, player, ffmpeg, espeak-ng, systemd-notify, the
 * speaker host) starts here, with an environment built from an allow-list: what such programs
 * need to find their tools, their locale and the sound server. The API key, a systemd
 * credentials directory, and anything else hark was given never reach a child.
 */
import {
  fork,
  spawn,
  spawnSync,
  type ChildProcess,
  type ForkOptions,
  type SpawnOptions,
  type SpawnSyncOptionsWithStringEncoding,
  type SpawnSyncReturns,
} from 'node:child_process';

const ALLOWED =
  /^(PATH|HOME|USER|LOGNAME|SHELL|TMPDIR|TZ|LANG|LANGUAGE|LC_[A-Z]+|TERM|DISPLAY|WAYLAND_DISPLAY|XDG_RUNTIME_DIR|XDG_CONFIG_HOME|XDG_DATA_DIRS|DBUS_SESSION_BUS_ADDRESS|PULSE_[A-Z_]+|PIPEWIRE_[A-Z_]+|ALSA_CONFIG_PATH|AUDIODEV)$/;

/** The environment of a child: the allow-listed part of hark's own, plus what the caller names. */
export function childEnvironment(
  extra: Record<string, string> = {},
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) if (value !== undefined && ALLOWED.test(name)) env[name] = value;
  return { ...env, ...extra };
}

type Env = { env?: Record<string, string> };

export function spawnChild(
  command: string,
  args: readonly string[],
  options: Omit<SpawnOptions, 'env'> & Env = {},
): ChildProcess {
  return spawn(command, args, { ...options, env: childEnvironment(options.env) });
}

export function runChild(
  command: string,
  args: readonly string[],
  options: Omit<SpawnSyncOptionsWithStringEncoding, 'env' | 'encoding'> & Env = {},
): SpawnSyncReturns<string> {
  return spawnSync(command, args, { ...options, encoding: 'utf8', env: childEnvironment(options.env) });
}

export function forkChild(
  modulePath: string,
  args: readonly string[],
  options: Omit<ForkOptions, 'env'> & Env = {},
): ChildProcess {
  return fork(modulePath, args, { ...options, env: childEnvironment(options.env) });
}
