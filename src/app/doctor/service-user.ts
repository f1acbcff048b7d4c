import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { CREDENTIAL_NAME, readApiKey } from '../../config/load.js';
import { spawnChild } from '../../system/spawn.js';

/** What systemd/hark.service gives hark; `doctor --as-service` rebuilds it for one run of the checks. */
export interface ServiceSetting {
  /** Where the unit's files are: config.yaml, hark-api-key (LoadCredential=), hark.env (EnvironmentFile=). */
  etcDir: string;
  /**
   * An unprivileged user of the check's own (no account, no process has it) and the audio group:
   * what DynamicUser= and SupplementaryGroups=audio amount to.
   */
  uid: number;
  gid: number;
}

const NOBODY = 65534;
/** The ids systemd gives DynamicUser= services. */
const DYNAMIC_FIRST = 61184;
const DYNAMIC_LAST = 65519;
/** systemd's PATH for services. */
const SERVICE_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export function defaultServiceSetting(groupFile = '/etc/group'): ServiceSetting {
  return { etcDir: '/etc/hark', uid: freeUid(), gid: groupId('audio', groupFile) ?? NOBODY };
}

/**
 * A user id that no account and no running process has, from systemd's DynamicUser= range: the
 * check runs as a user nothing else is, so what is made for it (the key) is reachable by it and
 * root alone. `nobody` would not do: other daemons run as nobody.
 */
export function freeUid(passwd = '/etc/passwd', proc = '/proc'): number {
  const taken = new Set<number>();
  for (const line of readOr(passwd).split('\n')) taken.add(Number(line.split(':')[2]));
  for (const entry of existsSync(proc) ? readdirSync(proc) : []) {
    if (!/^\d+$/.test(entry)) continue;
    const ids = /^Uid:\s+(.*)$/m.exec(readOr(join(proc, entry, 'status')))?.[1] ?? '';
    for (const id of ids.split(/\s+/)) taken.add(Number(id));
  }
  for (let uid = DYNAMIC_FIRST; uid <= DYNAMIC_LAST; uid++) if (!taken.has(uid)) return uid;
  throw new Error(`every user id from ${DYNAMIC_FIRST} to ${DYNAMIC_LAST} is taken`);
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
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
 * Runs `hark <args>` as the service would run: an unprivileged user of its own in the audio
 * group, HOME=/, systemd's PATH, no sound server in reach, settings from the unit's
 * EnvironmentFile, and the key as a credential copied (by root, as systemd does) into a folder
 * only that user (and root) can reach. The folder is removed on every way out: the child's end,
 * a failure, Ctrl-C or SIGTERM (passed on to the child), and the process's exit. Needs root.
 * Resolves with the child's exit code.
 */
export async function runAsServiceUser(
  harkMain: string,
  args: string[],
  setting: ServiceSetting = defaultServiceSetting(),
): Promise<number> {
  const staging = mkdtempSync(join(tmpdir(), 'hark-as-service-'));
  const remove = (): void => rmSync(staging, { recursive: true, force: true });
  process.on('exit', remove);
  const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
  let passOn: ((signal: NodeJS.Signals) => void) | undefined;
  const onSignal = (signal: NodeJS.Signals): void => passOn?.(signal);
  for (const signal of signals) process.on(signal, onSignal);
  try {
    const child = startChild(staging, harkMain, args, setting);
    passOn = (signal) => child.kill(signal);
    return await new Promise<number>((resolve) => {
      child.on('error', () => resolve(1));
      child.on('close', (code, signal) => resolve(code ?? (signal === 'SIGINT' ? 130 : 1)));
    });
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('exit', remove);
    remove();
  }
}

function startChild(staging: string, harkMain: string, args: string[], setting: ServiceSetting) {
  const credentials = join(staging, 'credentials');
  const cache = join(staging, 'cache');
  // The folder belongs to the check's user before the key is in it, and lets no one else in.
  chownSync(staging, setting.uid, setting.gid);
  mkdirSync(credentials, { mode: 0o700 });
  mkdirSync(cache, { mode: 0o700 });
  for (const folder of [credentials, cache]) chownSync(folder, setting.uid, setting.gid);
  const envFile = join(setting.etcDir, 'hark.env');
  const fromEnvFile = existsSync(envFile) ? parseEnvironmentFile(readFileSync(envFile, 'utf8')) : {};
  const { HARK_API_KEY: envKey, ...settings } = fromEnvFile;
  // The key the service would use, in its order: the environment file's, else the credential
  // (LoadCredential= reads it from beside the environment file).
  const key = readApiKey({ HARK_API_KEY: envKey, CREDENTIALS_DIRECTORY: setting.etcDir });
  if (key) {
    // Given its name only once it is the check's user's: no one finds it root's, as systemd's never is.
    const partial = join(credentials, `.${CREDENTIAL_NAME}.partial`);
    writeFileSync(partial, key, { mode: 0o400 });
    chownSync(partial, setting.uid, setting.gid);
    renameSync(partial, join(credentials, CREDENTIAL_NAME));
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
  return spawnChild(process.execPath, childArgs, {
    uid: setting.uid,
    gid: setting.gid,
    cwd: '/',
    stdio: 'inherit',
    env,
  });
}
