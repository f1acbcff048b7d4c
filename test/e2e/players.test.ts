import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runHark } from '../helpers/cli.js';
import { UTTERANCE } from '../helpers/speech.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-players-e2e-'));

/** A PATH with node and stand-ins for PipeWire's tools only: pw-play keeps its arguments and what it is given. */
function pipewireDesktop(): { path: string; args: string; audio: string } {
  const bin = mkdtempSync(join(dir, 'bin-'));
  const args = join(bin, 'pw-play.args');
  const audio = join(bin, 'pw-play.raw');
  const tool = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  tool('pw-cli', 'exit 0');
  tool(
    'pw-play',
    `case "$1" in --help) echo '  -a, --raw   RAW mode'; exit 0;; esac\necho "$@" > ${args}\n/bin/cat > ${audio}`,
  );
  return { path: `${bin}:${dirname(process.execPath)}`, args, audio };
}

describe('hark voice test', () => {
  it('plays through the player chosen for the machine (PipeWire: pw-play) and says which', async () => {
    const desktop = pipewireDesktop();
    const result = await runHark(['--sim', '--log-level', 'info', 'voice', 'test', 'Hi.'], {
      env: cleanEnv({ PATH: desktop.path }),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/"event":"player\.chosen","player":"pw-play","reason":"PipeWire answers"/);
    expect(readFileSync(desktop.args, 'utf8').trim()).toBe(
      '--raw --rate=24000 --channels=1 --format=s16 --latency=20ms -',
    );
    // "Hi." is over a quarter of a second in either of the stand-in's voices (espeak-ng or its own).
    expect(readFileSync(desktop.audio).length).toBeGreaterThan(0.25 * 24000 * 2);
  });

  it('exits 1 with the player’s own words when playback fails', async () => {
    const result = await runHark(['--sim', 'voice', 'test', 'Hi.'], {
      env: cleanEnv({
        HARK_AUDIO_PLAYER: 'command',
        HARK_AUDIO_PLAYER_COMMAND:
          'sh -c "cat > /dev/null; echo audio open error: Device or resource busy >&2; exit 1"',
      }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/hark: playback failed: sh exited with 1: audio open error: Device or resource busy/);
  });
});

describe('hark run with no usable output device', () => {
  it('fails the turn it could not play, without a latency for sound that never was, restarts the player seldom, and exits 1 with the fix', async () => {
    const starts = join(dir, 'player-starts');
    const result = await runHark(['--sim', 'run', '--input', UTTERANCE, '--fast'], {
      env: cleanEnv({
        HARK_WAKE_ENGINE: 'none',
        HARK_AUDIO_PLAYER: 'command',
        HARK_AUDIO_PLAYER_COMMAND: `sh -c "echo started >> ${starts}; echo audio open error: No such device >&2; exit 1"`,
      }),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'hark: nothing hark said could be played (sh exited with 1: audio open error: No such device): ' +
        'list the output devices with `hark devices` and set audio.playbackDevice (HARK_AUDIO_PLAYBACK_DEVICE), ' +
        'or write what hark says to a file with -o FILE.wav\n',
    );
    const lines = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const turn = lines.find((l) => l.event === 'turn');
    expect(turn).toMatchObject({
      level: 'error',
      stage: 'playback',
      heard: '',
      fix: expect.stringContaining('hark devices'),
    });
    expect(turn?.latencyMs).not.toHaveProperty('firstSamplePlayed');
    // The run takes some seconds: waits of 0.5, 1, 2 and 4 s between starts (it used to start one every 25 ms).
    const started = readFileSync(starts, 'utf8').trim().split('\n').length;
    expect(started).toBeLessThanOrEqual(5);
    expect(lines.filter((l) => l.event === 'player.failed')).toHaveLength(started);
  });
});
