import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { PACKAGE_ROOT } from '../system/package-paths.js';
import { registerSecret } from '../system/secrets.js';
import { ConfigError, describeIssue, formatPath, valueAt } from './config-error.js';
import { envName, envOverrides, envTable } from './env.js';
import { registerUrlSecrets } from './secret-values.js';
import { configSchema, defaultConfig, type HarkConfig } from './schema.js';

export const DEFAULTS_PATH = join(PACKAGE_ROOT, 'config', 'default.yaml');
export const CREDENTIAL_NAME = 'hark-api-key';
/** What to do when the service refuses the key (HTTP 401). */
export const API_KEY_FIX = `check the API key: HARK_API_KEY, or the systemd credential ${CREDENTIAL_NAME} (a token made in the service's console)`;
export const WEB_TOKEN_CREDENTIAL = 'hark-web-token';

export interface LoadOptions {
  /** `--config`: must exist when given. */
  configPath?: string | undefined;
  env?: NodeJS.ProcessEnv;
  defaultsPath?: string;
}

export interface LoadedConfig {
  config: HarkConfig;
  /** The layers read, lowest first. */
  sources: string[];
  apiKey: string | undefined;
  /** What a browser must show to reach the status page from another machine (HARK_WEB_TOKEN or a credential). */
  webToken: string | undefined;
}

interface Layer {
  source: string;
  values: Record<string, unknown>;
}

/** default.yaml ← user file ← HARK_* environment; validated as a whole, or not at all. */
export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  // Known as secrets before anything is read: a key pasted as a value is quoted back by the check.
  const apiKey = readApiKey(env);
  registerSecret(apiKey);
  const webToken = readSecret(env, 'HARK_WEB_TOKEN', WEB_TOKEN_CREDENTIAL);
  registerSecret(webToken);
  const layers: Layer[] = [];
  const defaultsPath = options.defaultsPath ?? DEFAULTS_PATH;
  if (existsSync(defaultsPath)) layers.push(readLayer(defaultsPath));
  const userPath = userConfigPath(options.configPath, env);
  if (userPath) layers.push(readLayer(userPath));
  const fromEnv = envOverrides(env);
  if (fromEnv.problems.length) throw new ConfigError(fromEnv.problems);
  if (Object.keys(fromEnv.values).length) layers.push({ source: 'environment', values: fromEnv.values });

  const merged: Record<string, unknown> = {};
  const origins = new Map<string, string>();
  for (const layer of layers) mergeInto(merged, layer.values, layer.source, origins, []);
  // Known as secrets before the check, which may quote a value back.
  const servers = valueAt(merged, ['tools', 'mcpServers']);
  registerUrlSecrets([
    valueAt(merged, ['service', 'baseUrl']),
    ...(Array.isArray(servers) ? servers.map((server: { url?: unknown } | null) => server?.url) : []),
  ]);
  const result = configSchema.safeParse(merged);
  if (!result.success) {
    const defaults = defaultConfig();
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const path = formatPath(issue.path);
        // An unknown key is blamed on the layer that wrote it, not on the section holding it.
        const culprit = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
        const source = originOf(origins, culprit.map(String)) ?? layers.at(-1)?.source ?? 'configuration';
        // A value from the environment is named as it was set there.
        const variable = source === 'environment' ? envName(culprit.map(String)) : undefined;
        const where = variable && envTable().has(variable) ? `${variable} (${path})` : path || '(top level)';
        return `${source}: ${where}: ${describeIssue(issue, merged, defaults)}`;
      }),
    );
  }
  return { config: result.data, sources: layers.map((l) => l.source), apiKey, webToken };
}

/**
 * `--config`, else `HARK_CONFIG`, else `$XDG_CONFIG_HOME/hark/config.yaml`, else `/etc/hark/config.yaml`;
 * undefined when none exists.
 * A file that may exist but cannot be reached (a directory without search permission) is an
 * error naming it, never "no file": a service must not run on defaults in silence.
 */
export function userConfigPath(explicit: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (explicit !== undefined) {
    if (!explicit.trim()) throw new ConfigError(['--config was given no file']);
    if (!configFileExists(explicit)) throw new ConfigError([`${explicit}: no such file (given with --config)`]);
    return explicit;
  }
  const named = env.HARK_CONFIG?.trim();
  if (named) {
    if (!configFileExists(named)) throw new ConfigError([`${named}: no such file (given as HARK_CONFIG)`]);
    return named;
  }
  const xdg = join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'hark', 'config.yaml');
  if (configFileExists(xdg)) return xdg;
  return configFileExists('/etc/hark/config.yaml') ? '/etc/hark/config.yaml' : undefined;
}

/** True when the file is there, false when it is not; any other answer (EACCES, ELOOP) is an error. */
function configFileExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return false;
    throw new ConfigError([unreadable(path, error as NodeJS.ErrnoException)]);
  }
}

function unreadable(path: string, error: NodeJS.ErrnoException): string {
  if (error.code !== 'EACCES' && error.code !== 'EPERM') return `${path}: cannot be read: ${error.message}`;
  const who = typeof process.getuid === 'function' ? ` (uid ${process.getuid()})` : '';
  return `${path}: cannot be read: permission denied for this user${who}; make it readable (chmod 644 ${path}, and chmod 755 on its directories)`;
}

/** The key comes from the environment (or an EnvironmentFile) or a systemd credential, never a file of settings. */
export function readApiKey(env: NodeJS.ProcessEnv): string | undefined {
  return readSecret(env, 'HARK_API_KEY', CREDENTIAL_NAME);
}

/** A secret from its environment variable, else from the systemd credential of that name (blank: none). */
function readSecret(env: NodeJS.ProcessEnv, variable: string, credential: string): string | undefined {
  const fromEnv = env[variable]?.trim();
  if (fromEnv) return oneLine(fromEnv, variable);
  const credentials = env.CREDENTIALS_DIRECTORY;
  if (credentials) {
    const path = join(credentials, credential);
    if (existsSync(path))
      return oneLine(readFileSync(path, 'utf8').trim(), `the credential ${credential}`) || undefined;
  }
  return undefined;
}

/**
 * A secret goes into an HTTP header: one line, no control characters. One with a line break in
 * it (two values pasted together) would fail every request, as a network error, after retries.
 */
function oneLine(secret: string, where: string): string {
  if ([...secret].some((c) => c < ' ' || c === '\x7f')) {
    throw new ConfigError([
      `${where}: holds a line break, a tab or another control character; it must be one line (the secret itself is not shown)`,
    ]);
  }
  return secret;
}

function readLayer(path: string): Layer {
  let text: string;
  try {
    if (statSync(path).isDirectory()) throw new ConfigError([`${path}: is a directory, not a YAML file`]);
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError([unreadable(path, error as NodeJS.ErrnoException)]);
  }
  const doc = YAML.parseDocument(text, { prettyErrors: true });
  if (doc.errors.length) {
    // yaml's first line ends with a colon, before the excerpt it would show.
    throw new ConfigError(
      doc.errors.map((e) => `${path}: YAML syntax: ${(e.message.split('\n')[0] ?? '').replace(/:\s*$/, '')}`),
    );
  }
  let values: unknown;
  try {
    values = doc.toJS();
  } catch (error) {
    // yaml refuses aliases that expand too far (a "billion laughs" file).
    throw new ConfigError([`${path}: YAML aliases: ${(error as Error).message.split('\n')[0]}`]);
  }
  const loop = cycleIn(values, '');
  if (loop !== undefined) {
    throw new ConfigError([
      `${path}: ${loop || '(top level)'}: a YAML alias refers to a node that contains it; a configuration cannot be recursive`,
    ]);
  }
  if (values === null || values === undefined) return { source: path, values: {} };
  if (typeof values !== 'object' || Array.isArray(values)) {
    throw new ConfigError([`${path}: must be a mapping of sections (service:, chat:, ...)`]);
  }
  // A section with every setting commented out (`speech:` and nothing under it) is an empty one.
  const sections = Object.fromEntries(
    Object.entries(values).map(([name, section]: [string, unknown]) => [name, section ?? {}]),
  );
  const secret = findSecretKey(sections, []);
  if (secret?.endsWith('token')) {
    throw new ConfigError([
      `${path}: ${secret}: the status page's token is never read from a config file; set HARK_WEB_TOKEN in the environment or an EnvironmentFile, or use a systemd credential named ${WEB_TOKEN_CREDENTIAL}`,
    ]);
  }
  if (secret) {
    throw new ConfigError([
      `${path}: ${secret}: the API key is never read from a config file; set HARK_API_KEY in the environment or an EnvironmentFile, or use a systemd credential named ${CREDENTIAL_NAME}`,
    ]);
  }
  return { source: path, values: sections };
}

/** The path of the first node that contains itself (a recursive alias), or undefined when there is none. */
function cycleIn(node: unknown, path: string, open = new Set<object>()): string | undefined {
  if (typeof node !== 'object' || node === null) return undefined;
  if (open.has(node)) return path;
  open.add(node);
  for (const [key, value] of Object.entries(node)) {
    const found = cycleIn(value, Array.isArray(node) ? `${path}[${key}]` : path ? `${path}.${key}` : key, open);
    if (found !== undefined) return found;
  }
  open.delete(node);
  return undefined;
}

function findSecretKey(node: Record<string, unknown>, path: string[]): string | undefined {
  for (const [key, value] of Object.entries(node)) {
    if (/^(api[-_]?key|apikey|token|secret)$/i.test(key)) return [...path, key].join('.');
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      const found = findSecretKey(value as Record<string, unknown>, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

function mergeInto(
  target: Record<string, unknown>,
  source: Record<string, unknown>,
  label: string,
  origins: Map<string, string>,
  path: string[],
): void {
  for (const [key, value] of Object.entries(source)) {
    const here = [...path, key];
    const existing = target[key];
    if (isPlainObject(value) && isPlainObject(existing)) {
      mergeInto(existing, value, label, origins, here);
    } else {
      target[key] = isPlainObject(value) ? structuredClone(value) : value;
      recordOrigins(value, here, label, origins);
    }
  }
}

function recordOrigins(value: unknown, path: string[], label: string, origins: Map<string, string>): void {
  origins.set(path.join('.'), label);
  if (isPlainObject(value))
    for (const [key, inner] of Object.entries(value)) recordOrigins(inner, [...path, key], label, origins);
}

function originOf(origins: Map<string, string>, path: string[]): string | undefined {
  for (let n = path.length; n > 0; n--) {
    const found = origins.get(path.slice(0, n).join('.'));
    if (found) return found;
  }
  return undefined;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
