/**
 * Timers shared by real processes: `hark tools call` side by side, and beside a running hark,
 * with the state directory as the service and the command find it (XDG_STATE_HOME here).
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { HARK, cleanEnv, runHark } from '../helpers/cli.js';
import { composeWav } from '../helpers/loop.js';
import { FAST_TIMING } from '../helpers/service.js';
import { startWebHark } from '../helpers/web.js';

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/** A folder anyone may enter (mkdtemp makes 0700 ones), for a command run as another user. */
function openDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  chmodSync(dir, 0o755);
  return dir;
}

function stateEnv(state: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({ XDG_STATE_HOME: state, ...extra });
}

const call = (env: NodeJS.ProcessEnv, name: string, args: unknown = {}) =>
  runHark(['tools', 'call', name, JSON.stringify(args)], { env });

describe('timers set by several processes', () => {
  it('eight `hark tools call set_timer` at once: all eight are kept, each with its own id', async () => {
    const state = mkdtempSync(join(tmpdir(), 'hark-state-'));
    const env = stateEnv(state);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, n) => call(env, 'set_timer', { duration_seconds: 600 + n, label: `tea ${n}` })),
    );
    expect(results.map((r) => r.code)).toEqual(Array(8).fill(0));
    const saved = JSON.parse(readFileSync(join(state, 'hark', 'timers.json'), 'utf8')) as {
      nextId: number;
      timers: { id: string; label: string }[];
    };
    expect(saved.timers.map((t) => t.label).sort()).toEqual(Array.from({ length: 8 }, (_, n) => `tea ${n}`));
    expect(new Set(saved.timers.map((t) => t.id)).size).toBe(8);
    expect(saved.nextId).toBe(9);
    // Each answer named the id its timer has in the file.
    const ids = results.map((r) => /Id (t\d+)\./.exec(r.stdout)?.[1]);
    expect(new Set(ids)).toEqual(new Set(saved.timers.map((t) => t.id)));
    expect((await call(env, 'list_timers')).stdout).toMatch(/^8 set: tea \d timer, /);
  });

  it('with the state directory unwritable: the timer is not confirmed, the command fails saying why, and none is listed', async () => {
    const home = openDir('hark-home-');
    const state = openDir('hark-state-');
    const folder = join(state, 'hark');
    mkdirSync(folder, { mode: 0o555 });
    chmodSync(folder, 0o555);
    // As root every folder is writable: the command runs as nobody, as a service's user would.
    const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_STATE_HOME: state };
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [HARK, ...args], {
          env,
          ...(asRoot ? { uid: NOBODY, gid: NOBODY } : {}),
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (code) => resolve({ code, stdout, stderr }));
      });
    const set = await run(['tools', 'call', 'set_timer', '{"at": "06:45"}']);
    expect(set.code).toBe(1);
    expect(set.stdout).toBe('');
    expect(set.stderr).toContain(
      `hark: set_timer failed: cannot write ${join(folder, 'timers.json')}: permission denied`,
    );
    const listed = await run(['tools', 'call', 'list_timers']);
    expect(listed.stdout).toBe('No timers or alarms are set.\n');
  });
});

describe('a timer set with `hark tools call` while hark runs', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ timing: FAST_TIMING });
  });
  afterAll(() => sim.close());

  it('is taken up by the running hark and rings there; the answer says who rings it', async () => {
    const state = mkdtempSync(join(tmpdir(), 'hark-state-'));
    const env = { XDG_STATE_HOME: state, HARK_SERVICE_BASE_URL: sim.url, HARK_API_KEY: sim.apiKey };
    // Quiet, in real time: long enough for the command to run and the timer to ring.
    const quiet = await composeWav([15_000]);
    const hark = await startWebHark(['run', '--input', quiet, '--web', '-o', join(state, 'out.wav')], env);
    try {
      await hark.line('hark.listening');
      const set = await call(stateEnv(state, env), 'set_timer', { duration_seconds: 2, label: 'tea' });
      expect(set.stdout).toMatch(
        new RegExp(
          `^Timer set for 2 seconds \\(tea\\); it rings at \\d\\d:\\d\\d\\. Id t1\\. The hark running now \\(process ${hark.child.pid}\\) rings it\\.\\n$`,
        ),
      );
      expect(await hark.line('ring.started')).toMatchObject({ text: 'Your tea timer is done.' });
      // Rung, and so gone from the file the command reads.
      await expect
        .poll(async () => (await call(stateEnv(state), 'list_timers')).stdout)
        .toBe('No timers or alarms are set.\n');
    } finally {
      await hark.stop();
    }
    // With no hark running, the answer says when it will ring instead.
    const later = await call(stateEnv(state), 'set_timer', { duration_seconds: 60 });
    expect(later.stdout).toMatch(
      /No hark is running with these timers \(.*timers\.json\): it rings when `hark run` next starts with them/,
    );
  });
});

describe('`hark tools call volume`', () => {
  it('says that a change of hark’s own gain ends with the command and leaves a running hark’s volume as it was', async () => {
    const env = cleanEnv({ HARK_AUDIO_PLAYER: 'command', HARK_AUDIO_PLAYER_COMMAND: 'cat' });
    const set = await call(env, 'volume', { action: 'set', percent: 50 });
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(
      /^Volume 50% \(gain\)\. No mixer answered, so this was hark's own playback gain, which lives only in this command: it ended with it, and the volume of a running hark did not change\./,
    );
  });
});
