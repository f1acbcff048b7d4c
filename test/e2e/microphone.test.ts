/** hark with a microphone that does not work, and with one that does: a stand-in `arecord` first on PATH. */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARK, cleanEnv, runHark } from '../helpers/cli.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-microphone-'));

/** A PATH whose `arecord` runs `body`, then the system's tools. */
function withRecorder(body: string): string {
  const bin = mkdtempSync(join(dir, 'bin-'));
  writeFileSync(join(bin, 'arecord'), `#!/bin/sh\n${body}\n`);
  chmodSync(join(bin, 'arecord'), 0o755);
  return `${bin}:${dirname(process.execPath)}:/usr/bin:/bin`;
}

const NO_DEVICE = withRecorder('echo "arecord: main:831: audio open error: No such file or directory" >&2\nexit 1');
/** Half a second of silence, then nothing more until it is stopped. */
const SILENT_DEVICE = withRecorder('head -c 16000 /dev/zero\nexec sleep 60');

/** `hark --sim run` from the microphone until `enough` of its log lines have come; then Ctrl-C. */
function runUntil(
  path: string,
  enough: (lines: Record<string, unknown>[]) => boolean,
): Promise<Record<string, unknown>[]> {
  const child = spawn(process.execPath, [HARK, '--sim', '--log-format', 'json', 'run'], {
    env: cleanEnv({ PATH: path, HARK_WAKE_ENGINE: 'none', HARK_WEB_ENABLED: 'false' }),
  });
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  const killer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  child.stdout.on('data', (d: Buffer) => {
    rest += d.toString();
    for (let at = rest.indexOf('\n'); at >= 0; at = rest.indexOf('\n')) {
      lines.push(JSON.parse(rest.slice(0, at)) as Record<string, unknown>);
      rest = rest.slice(at + 1);
      if (enough(lines)) child.kill('SIGINT');
    }
  });
  return new Promise((resolve) =>
    child.on('close', () => {
      clearTimeout(killer);
      resolve(lines);
    }),
  );
}

describe('hark run from the microphone', () => {
  it('does not say it listens while its microphone fails; each failure says what to do', async () => {
    const lines = await runUntil(NO_DEVICE, (seen) => seen.filter((l) => l.event === 'mic.failed').length >= 2);
    const failed = lines.filter((l) => l.event === 'mic.failed');
    expect(failed[0]).toMatchObject({
      error: expect.stringContaining('arecord') as unknown,
      recorderSaid: 'arecord: main:831: audio open error: No such file or directory',
      fix: expect.stringMatching(/^list the microphones with `hark devices` and set audio\.captureDevice/) as unknown,
    });
    expect(lines.map((l) => l.event)).not.toContain('hark.listening');
  });

  it('says it listens once the microphone delivers audio', async () => {
    const lines = await runUntil(SILENT_DEVICE, (seen) => seen.some((l) => l.event === 'hark.listening'));
    expect(lines.find((l) => l.event === 'hark.listening')).toMatchObject({ input: 'microphone (arecord)' });
    expect(lines.map((l) => l.event)).not.toContain('mic.failed');
  });
});

describe('hark wake listen', () => {
  it('with no microphone, exits 1 saying so and what to do, instead of trying again for ever', async () => {
    const result = await runHark(['wake', 'listen'], { env: cleanEnv({ PATH: NO_DEVICE }), timeoutMs: 20_000 });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^hark: no microphone \(.*arecord.*No such file or directory\): list the microphones with `hark devices`/m,
    );
  });
});
