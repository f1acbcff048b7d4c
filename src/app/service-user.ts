import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CREDENTIAL_NAME, readApiKey } from '../config/load.js';
import { spawnChild } from '../system/spawn.js';

/** What systemd/hark.service gives hark; `doctor --as-service` rebuilds it for one run of the checks. */
export interface ServiceSetting {
  /** Where the unit's files are: config.yaml, hark-api-key (LoadCredential=), hark.env (EnvironmentFile=). */
  etcDir: string;
  /** An unprivileged user and the audio group: what DynamicUser= and SupplementaryGroups=audio amount to. */
  uid: number;
  gid: number;
}

const NOBODY = 65534;
/** systemd's PATH for services. */
const SERVICE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function defaultServiceSetting(groupFile = '/etc/group'): ServiceSetting {
  return { etcDir: '/etc/hark', uid: NOBODY, gid: groupId('audio', groupFile) ?? NOBODY };
}

function groupId(name: string, groupFile: string): number | undefined {
  try {
    const line = readFileSync(groupFile, 'utf8')
      .split('\n')
      .find((l) => l.startsWith(`${name}:`));
    const gid = Number(line?.split(':')[2]);
    return Number.isInteger(gid) ? gid : undefined;
  } catch {
    return undefined;
  }
}

/** `KEY=value` lines of an EnvironmentFile (quotes taken off; comments and blank lines skipped). */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!match || line.startsWith('#')) continue;
    values[match[1] as string] = (match[2] as string).replace(/^(["'])(.*)\1$/, '$2');
  }
  return values;
}

/**
 * Runs `hark <args>` as the service would run: an unprivileged user in the audio group, HOME=/,
 * systemd's PATH, no sound server in reach, settings from the unit's EnvironmentFile, and the key
 * as a credential copied (by root, as systemd does) into a directory only that user can read.
 * Needs root. Resolves with the child's exit code.
 */
export async function runAsServiceUser(
  harkMain: string,
  args: string[],
  setting: ServiceSetting = defaultServiceSetting(),
): Promise<number> {
  const staging = mkdtempSync(join(tmpdir(), 'hark-as-service-'));
  try {
    const credentials = join(staging, 'credentials');
    const cache = join(staging, 'cache');
    mkdirSync(credentials, { mode: 0o700 });
    mkdirSync(cache, { mode: 0o700 });
    const envFile = join(setting.etcDir, 'hark.env');
    const fromEnvFile = existsSync(envFile) ? parseEnvironmentFile(readFileSync(envFile, 'utf8')) : {};
    const { HARK_API_KEY: envKey, ...settings } = fromEnvFile;
    // The key the service would use, in its order: the environment file's, else the credential
    // (LoadCredential= reads it from beside the environment file).
    const key = readApiKey({ HARK_API_KEY: envKey, CREDENTIALS_DIRECTORY: setting.etcDir });
    if (key) writeFileSync(join(credentials, CREDENTIAL_NAME), key, { mode: 0o400 });
    for (const path of [staging, credentials, cache, join(credentials, CREDENTIAL_NAME)]) {
      if (existsSync(path)) chownSync(path, setting.uid, setting.gid);
    }
    const config = join(setting.etcDir, 'config.yaml');
    const childArgs = [harkMain, ...(existsSync(config) ? ['--config', config] : []), ...args];
    const env: Record<string, string> = {
      ...Object.fromEntries(Object.entries(settings).filter(([name]) => name.startsWith('HARK_'))),
      PATH: `${SERVICE_PATH}:${dirname(process.execPath)}`,
      HOME: '/',
      CREDENTIALS_DIRECTORY: credentials,
      CACHE_DIRECTORY: cache,
      // A system service has no session: none of the sound server's addresses reach it.
      XDG_RUNTIME_DIR: '',
      PULSE_SERVER: '',
      PIPEWIRE_RUNTIME_DIR: '',
      DBUS_SESSION_BUS_ADDRESS: '',
    };
    const child = spawnChild(process.execPath, childArgs, {
      uid: setting.uid,
      gid: setting.gid,
      cwd: '/',
      stdio: 'inherit',
      env,
    });
    return await new Promise<number>((resolve) => {
      child.on('error', () => resolve(1));
      child.on('close', (code) => resolve(code ?? 1));
    });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
