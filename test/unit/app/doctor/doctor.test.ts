import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPlayer } from '../../../../src/app/doctor/doctor-audio.js';
import { checkVad } from '../../../../src/app/doctor/doctor.js';
import { systemProbe } from '../../../../src/audio/choose-player.js';
import { defaultConfig, type HarkConfig } from '../../../../src/config/schema.js';

const STUBS = resolve(import.meta.dirname, '../../../fixtures/speaker-stubs');
const root = mkdtempSync(join(tmpdir(), 'hark-doctor-'));
let n = 0;

function machine(tools: Record<string, string>): ReturnType<typeof systemProbe> {
  const bin = join(root, `bin-${++n}`);
  mkdirSync(bin);
  for (const [name, body] of Object.entries(tools)) {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  }
  return systemProbe({ PATH: bin });
}

function config(audio: Partial<HarkConfig['audio']> = {}): HarkConfig {
  const base = defaultConfig();
  return { ...base, audio: { ...base.audio, ...audio } };
}

describe('doctor: the VAD row', () => {
  it('runs Silero on a frame and says so; with the energy VAD chosen, skips it', async () => {
    expect(await checkVad('silero')).toEqual({ check: 'VAD model', status: 'ok', detail: 'Silero v5 loads and runs' });
    expect(await checkVad('energy')).toMatchObject({ status: 'skip' });
  });
});

describe('doctor: the player row', () => {
  it('plays silence through the chosen player and says which and why', async () => {
    const probe = machine({ 'pw-cli': 'exit 0', 'pw-play': '/bin/cat > /dev/null' });
    expect(await checkPlayer(config(), { probe })).toEqual({
      check: 'player',
      status: 'ok',
      detail: 'pw-play (PipeWire answers) plays',
    });
  });

  it('a player that cannot open its device: its own words, and how to pick a device', async () => {
    const probe = machine({ aplay: 'echo "aplay: main:831: audio open error: Device or resource busy" >&2; exit 1' });
    const result = await checkPlayer(config({ playbackDevice: 'plughw:CARD=Device,DEV=0' }), { probe });
    expect(result).toMatchObject({
      status: 'fail',
      detail:
        'aplay (audio.playbackDevice plughw:CARD=Device,DEV=0 is an ALSA device): aplay: main:831: audio open error: Device or resource busy',
      fix: expect.stringMatching(/`hark devices`.*audio\.playbackDevice/),
    });
  });

  it('no player installed: the package to install', async () => {
    expect(await checkPlayer(config(), { probe: machine({}) })).toMatchObject({
      status: 'fail',
      detail: 'aplay (no player found: aplay is in alsa-utils): aplay is not installed',
      fix: 'sudo apt install alsa-utils',
    });
  });

  it('speaker not installed is not a hardware problem: install it where it builds, or use auto', async () => {
    const speaker = config({ player: 'speaker' });
    const x64 = await checkPlayer(speaker, { speakerInstalled: false, arch: 'x64' });
    expect(x64).toMatchObject({ status: 'fail', detail: 'speaker: the speaker module is not installed' });
    expect(x64.fix).toMatch(/sudo npm install -g speaker.*audio\.player: auto/);
    const arm64 = await checkPlayer(speaker, { speakerInstalled: false, arch: 'arm64' });
    expect(arm64.fix).toBe(
      'speaker does not build on 64-bit ARM (its bundled mpg123 has no arm64 config): set audio.player: auto',
    );
  });

  it('speaker installed but no usable device: ALSA’s words, and the hardware fix', async () => {
    const result = await checkPlayer(config({ player: 'speaker' }), {
      speakerInstalled: true,
      speakerModule: join(STUBS, 'no-device.cjs'),
    });
    expect(result).toMatchObject({
      status: 'fail',
      detail:
        'speaker: no usable audio output device (ALSA lib pcm.c:2664:(snd_pcm_open_noupdate) Unknown PCM hark_no_such_device)',
      fix: expect.stringMatching(/^plug in a speaker/),
    });
  });
});
