import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnvironment, runChild } from '../../../src/system/spawn.js';
import { PACKAGE_ROOT } from '../../../src/system/package-paths.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : /\.c?ts$/.test(name) ? [path] : [];
  });
}

describe('child processes', () => {
  it('are started only through system/spawn.ts, so none can bypass its environment', () => {
    const starters = sources(join(PACKAGE_ROOT, 'src')).filter((path) => {
      const text = readFileSync(path, 'utf8');
      const valueImport = /import\s+(?!type\b)[^;]*from\s+'(node:)?child_process'/.test(text);
      return valueImport || /require\(\s*'(node:)?child_process'\s*\)/.test(text);
    });
    expect(starters.map((path) => relative(PACKAGE_ROOT, path))).toEqual(['src/system/spawn.ts']);
  });

  it('never see the key or the credentials directory, only what the allow-list names', () => {
    const env = childEnvironment(
      { NOTIFY_SOCKET: '/run/notify' },
      {
        PATH: '/usr/bin',
        HOME: '/home/pi',
        LC_ALL: 'de_DE.UTF-8',
        PULSE_SERVER: 'unix:/run/pulse',
        HARK_API_KEY: 'sk-secret',
        CREDENTIALS_DIRECTORY: '/run/credentials/hark.service',
        SOME_TOKEN: 'x',
      },
    );
    expect(env).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/pi',
      LC_ALL: 'de_DE.UTF-8',
      PULSE_SERVER: 'unix:/run/pulse',
      NOTIFY_SOCKET: '/run/notify',
    });
  });

  it('a real child sees the allow-listed environment and nothing of the key', () => {
    const saved = process.env.HARK_API_KEY;
    process.env.HARK_API_KEY = 'sk-hark-test-key-0123456789';
    try {
      const printed = runChild('env', []).stdout;
      expect(printed).toMatch(/^PATH=/m);
      expect(printed).not.toMatch(/HARK_API_KEY|sk-hark-test-key/);
    } finally {
      if (saved === undefined) delete process.env.HARK_API_KEY;
      else process.env.HARK_API_KEY = saved;
    }
  });
});
