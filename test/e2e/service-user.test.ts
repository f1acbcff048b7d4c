/**
 * What a system service sees: hark started as an unprivileged user, as systemd's DynamicUser
 * does. As root the tests switch to `nobody`; as anyone else they take read permission away,
 * which is what a root-only file looks like to the service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { HARK, cleanEnv, runHark, type RunResult } from '../helpers/cli.js';
import { UTTERANCE } from '../helpers/speech.js';

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** A folder the unprivileged user can enter (mkdtemp makes 0700 ones). */
function openDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

function runAsService(args: string[], env: NodeJS.ProcessEnv): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [HARK, ...args], {
      env: { PATH: process.env.PATH, ...env },
      ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

describe('a config file the service user cannot read', () => {
  it('in a directory it may not enter (mode 0700, as /etc/hark once was): the start fails naming the file', async () => {
    const home = openDir('hark-svc-');
    const etc = join(home, 'etc-hark');
    mkdirSync(join(etc, 'hark'), { recursive: true });
    const config = join(etc, 'hark', 'config.yaml');
    writeFileSync(config, 'audio:\n  captureDevice: plughw:CARD=Device,DEV=0\n');
    chmodSync(join(etc, 'hark'), asRoot ? 0o700 : 0o000);
    const result = await runAsService(['run'], { HOME: home, XDG_CONFIG_HOME: etc, HARK_API_KEY: 'k-123456' });
    chmodSync(join(etc, 'hark'), 0o755);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${config}: cannot be read: permission denied`);
    expect(result.stdout).not.toMatch(/hark\.listening/);
  });

  it('itself unreadable (mode 0600, owned by root): the start fails naming the file', async () => {
    const home = openDir('hark-svc-');
    const config = join(home, 'config.yaml');
    writeFileSync(config, 'speech:\n  voice: Cherry\n');
    chmodSync(config, asRoot ? 0o600 : 0o000);
    const result = await runAsService(['--config', config, 'run'], { HOME: home, HARK_API_KEY: 'k-123456' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(`${config}: cannot be read: permission denied`);
  });
});

describe.runIf(asRoot)('hark doctor --as-service', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim();
  });
  afterAll(() => sim.close());

  /** An /etc/hark as the README's install makes it: the key root-only, settings in hark.env and config.yaml. */
  function etcHark(configMode: number): string {
    const etc = openDir('hark-etc-');
    writeFileSync(join(etc, 'hark-api-key'), `${sim.apiKey}\n`, { mode: 0o600 });
    writeFileSync(join(etc, 'hark.env'), `HARK_SERVICE_BASE_URL=${sim.url}\n`, { mode: 0o600 });
    writeFileSync(join(etc, 'config.yaml'), 'speech:\n  voice: Cherry\n');
    chmodSync(join(etc, 'config.yaml'), configMode);
    return etc;
  }

  it('reads what the service user can read: a root-only config.yaml fails, naming the file', async () => {
    const etc = etcHark(0o600);
    const result = await runHark(['doctor', '--as-service', '--service-etc', etc], { env: cleanEnv() });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^checking as hark\.service runs: an unprivileged user/);
    expect(result.stdout).toContain(
      `FAIL  config  invalid configuration:\n  ${etc}/config.yaml: cannot be read: permission denied`,
    );
  });

  it('with config.yaml 0644 and the key only in a root-only file (LoadCredential=), everything the service needs is there', async () => {
    const etc = etcHark(0o644);
    const result = await runHark(['doctor', '--as-service', '--service-etc', etc], { env: cleanEnv() });
    expect(result.stdout).toMatch(
      new RegExp(`^ok +config +valid \\(.*default\\.yaml <- ${etc}/config\\.yaml <- environment\\)`, 'm'),
    );
    expect(result.stdout).toMatch(/^ok +service +http:\/\/127\.0\.0\.1:\d+\/ answers and accepts the key/m);
    expect(result.stdout).toMatch(/^ok +service sandbox/m);
  });

  it("keeps the key, while the check runs, in a folder only the check's own user can reach, and removes it when interrupted", async () => {
    const etc = etcHark(0o644);
    // The parent makes its folder under TMPDIR: one of this test's own, to look into.
    const tmp = openDir('hark-tmp-');
    let child: ChildProcess | undefined;
    const run = runHark(['doctor', '--as-service', '--service-etc', etc], {
      env: cleanEnv({ TMPDIR: tmp }),
      started: (started) => (child = started),
    });
    const found = () => readdirSync(tmp).find((name) => name.startsWith('hark-as-service-'));
    await expect
      .poll(() => existsSync(join(tmp, found() ?? 'none', 'credentials', 'hark-api-key')), {
        timeout: 20_000,
        interval: 10,
      })
      .toBe(true);
    const folder = join(tmp, found() as string);
    const key = join(folder, 'credentials', 'hark-api-key');
    const owner = statSync(folder).uid;
    expect(owner).not.toBe(NOBODY);
    expect(owner).toBeGreaterThanOrEqual(61184);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(statSync(key)).toMatchObject({ uid: owner, mode: expect.any(Number) as number });
    expect(statSync(key).mode & 0o777).toBe(0o400);
    // No account has that id (and, when the check began, no process had it).
    const accounts = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((line) => Number(line.split(':')[2]));
    expect(accounts).not.toContain(owner);
    child?.kill('SIGINT');
    const result = await run;
    expect(result.signal).toBeNull();
    // Gone; Node 22 and later may leave its compile cache beside it (node-compile-cache).
    expect(found()).toBeUndefined();
  });

  it('refuses to run unless root, since it switches users', async () => {
    const result = await runAsService(['doctor', '--as-service'], { HOME: '/' });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/run it as root \(sudo hark doctor --as-service\)/);
  });
});

describe('onnxruntime, loaded for the VAD', () => {
  // onnxruntime 1.30 writes a telemetry device ID to $HOME/.cache, and warns at every start
  // where it cannot (under systemd): hark turns its telemetry off.
  it('writes nothing to the home directory', async () => {
    const env = cleanEnv();
    const out = join(env.HOME as string, 'reply.wav');
    const result = await runHark(['--sim', 'run', '--input', UTTERANCE, '--fast', '-o', out], { env });
    expect(result.code).toBe(0);
    expect(result.stderr).not.toMatch(/telemetry/i);
    expect(existsSync(join(env.HOME as string, '.cache'))).toBe(false);
  });
});
