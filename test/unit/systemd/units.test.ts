/**
 * The unit files as systemd reads them: `systemd-analyze verify` (any warning fails), the
 * system unit's exposure score, and what each unit must provide for hark to start.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, readApiKey } from '../../../src/config/load.js';
import { childEnvironment } from '../../../src/system/spawn.js';
import { referenceCacheDir } from '../../../src/voice/reference.js';

const SYSTEMD = resolve(import.meta.dirname, '../../../systemd');
const analyze = spawnSync('systemd-analyze', ['--version']).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'hark-units-'));
const stub = join(dir, 'hark');
writeFileSync(stub, '#!/bin/sh\n');
chmodSync(stub, 0o755);

function unit(name: string): string {
  return readFileSync(join(SYSTEMD, name), 'utf8');
}

/** Directive values of the unit, in order (`Key=value` lines, comments skipped). */
function values(text: string, key: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${key}=`))
    .map((line) => line.slice(key.length + 1));
}

/** The unit with `hark` (found on systemd's PATH once installed) replaced by a stand-in that exists here. */
function installed(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, unit(name).replace(/^ExecStart=hark /m, `ExecStart=${stub} `));
  return path;
}

function verify(path: string, user: boolean): { status: number | null; output: string } {
  const runtime = mkdtempSync(join(dir, 'run-'));
  const args = [...(user ? ['--user'] : []), 'verify', path];
  const result = spawnSync('systemd-analyze', args, {
    encoding: 'utf8',
    env: { ...process.env, XDG_RUNTIME_DIR: runtime },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`.trim() };
}

describe.skipIf(!analyze)('systemd/hark.service', () => {
  it('passes systemd-analyze verify without a warning', () => {
    expect(verify(installed('hark.service'), false)).toEqual({ status: 0, output: '' });
  });

  it('keeps systemd-analyze security at 2.0 or below', () => {
    const result = spawnSync(
      'systemd-analyze',
      ['security', '--offline=true', '--threshold=20', installed('hark.service')],
      {
        encoding: 'utf8',
      },
    );
    const score = Number(/Overall exposure level for hark\.service: ([\d.]+)/.exec(result.stdout)?.[1]);
    expect(score).toBeLessThanOrEqual(2.0);
    expect(result.status).toBe(0);
  });
});

describe('systemd/hark.service settings', () => {
  const text = unit('hark.service');

  it('starts with the key as a credential or in the environment file: the credential has a default', () => {
    expect(values(text, 'LoadCredential')).toEqual([
      'hark-api-key:/etc/hark/hark-api-key',
      'hark-web-token:/etc/hark/hark-web-token',
    ]);
    expect(values(text, 'SetCredential')).toEqual(['hark-api-key:\\n', 'hark-web-token:\\n']);
    expect(values(text, 'EnvironmentFile')).toEqual(['-/etc/hark/hark.env']);
    // That default (a lone newline) is no key: the environment file's HARK_API_KEY is used, or hark says none is set.
    const credentials = mkdtempSync(join(dir, 'creds-'));
    writeFileSync(join(credentials, 'hark-api-key'), '\n');
    expect(readApiKey({ CREDENTIALS_DIRECTORY: credentials })).toBeUndefined();
    expect(readApiKey({ CREDENTIALS_DIRECTORY: credentials, HARK_API_KEY: 'from-hark-env' })).toBe('from-hark-env');
    // The same for the status page's token: no token, so the page stays on loopback (or hark refuses to start).
    writeFileSync(join(credentials, 'hark-web-token'), '\n');
    const env = { HOME: credentials, XDG_CONFIG_HOME: join(credentials, 'none'), CREDENTIALS_DIRECTORY: credentials };
    expect(loadConfig({ env }).webToken).toBeUndefined();
  });

  it('lets onnxruntime read /proc/cpuinfo, and does not restart in a loop on a configuration error', () => {
    expect(values(text, 'ProcSubset')).toEqual([]);
    expect(values(text, 'RestartPreventExitStatus')).toEqual(['2']);
    expect(values(text, 'ExecStart')).toEqual(['hark run']);
  });
});

describe.skipIf(!analyze)('systemd/hark-user.service', () => {
  it('passes systemd-analyze --user verify without a warning', () => {
    expect(verify(installed('hark-user.service'), true)).toEqual({ status: 0, output: '' });
  });
});

describe('systemd/hark-user.service settings', () => {
  const text = unit('hark-user.service');

  it('has every path it needs: what it writes is created by the unit, what it reads is optional', () => {
    for (const key of ['ReadWritePaths', 'ReadOnlyPaths', 'BindPaths', 'BindReadOnlyPaths', 'WorkingDirectory']) {
      for (const path of values(text, key).flatMap((v) => v.split(/\s+/))) {
        expect(path, `${key}=${path} must be optional ("-") or created by the unit`).toMatch(/^-/);
      }
    }
    for (const file of values(text, 'EnvironmentFile')) expect(file).toMatch(/^-/);
    // hark writes only its clip cache, to $CACHE_DIRECTORY, which CacheDirectory= creates and makes writable.
    expect(values(text, 'CacheDirectory')).toEqual(['hark']);
    expect(values(text, 'ConfigurationDirectory')).toEqual(['hark']);
    expect(values(text, 'ProtectSystem')).toEqual(['strict']);
  });

  it('waits for the sound server, not for a network target a user manager does not have', () => {
    expect(text).not.toMatch(/network-online\.target/);
    expect(values(text, 'After').join(' ')).toMatch(/pipewire\.service.*pulseaudio\.service/);
  });
});

describe('NotifyAccess in both units', () => {
  /** The comment lines right above a directive. */
  function commentAbove(text: string, directive: string): string {
    const lines = text.split('\n');
    const at = lines.indexOf(directive);
    let first = at;
    while (first > 0 && lines[first - 1]?.startsWith('#')) first--;
    return lines.slice(first, at).join(' ');
  }

  it.each(['hark.service', 'hark-user.service'])(
    '%s: "all" only because a child reports for hark, with the cost said above it; no other child gets the socket',
    (name) => {
      const text = unit(name);
      expect(values(text, 'NotifyAccess')).toEqual(['all']);
      const why = commentAbove(text, 'NotifyAccess=all');
      expect(why).toMatch(/systemd-notify, a child/);
      expect(why).toMatch(/Node cannot send a\s+(# )?Unix datagram itself/);
      expect(why).toMatch(/NotifyAccess=main (systemd )?would drop every report/);
      expect(why).toMatch(/Any process of the unit/i);
      // Only systemd-notify is handed the socket: an MCP server or a player never is.
      expect(childEnvironment({}, { NOTIFY_SOCKET: '/run/systemd/notify', PATH: '/bin' })).toEqual({ PATH: '/bin' });
    },
  );
});

describe('the clip cache under systemd', () => {
  it('is $CACHE_DIRECTORY, which both units set through CacheDirectory=', () => {
    expect(referenceCacheDir({ CACHE_DIRECTORY: '/var/cache/hark', HOME: '/' })).toBe('/var/cache/hark');
  });
});
