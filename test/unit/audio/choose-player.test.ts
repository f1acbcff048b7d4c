import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPlayer } from '../../../src/app/compose/voice-loop.js';
import { choosePlayer, systemProbe, type PlayerSettings } from '../../../src/audio/choose-player.js';
import { CommandPlayer } from '../../../src/audio/command-player.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { createMemoryLogger } from '../../../src/system/logger.js';

const root = mkdtempSync(join(tmpdir(), 'hark-choose-'));
let n = 0;

/**
 * A machine: stand-ins for the sound tools on an otherwise empty PATH. `pw-cli info 0` and
 * `pactl info` exit 0 when their server answers and non-zero when not, as the real ones do.
 */
function machine(tools: {
  pipewire?: 'answers' | 'down';
  pulse?: 'answers' | 'down';
  pwPlay?: '1.x' | '0.3';
  pacat?: boolean;
  aplay?: boolean;
  pwCli?: boolean;
  pactl?: boolean;
}): string {
  const bin = join(root, `machine-${++n}`);
  mkdirSync(bin);
  const tool = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  if (tools.pipewire && tools.pwCli !== false) tool('pw-cli', `exit ${tools.pipewire === 'answers' ? 0 : 255}`);
  if (tools.pulse && tools.pactl !== false) tool('pactl', `exit ${tools.pulse === 'answers' ? 0 : 1}`);
  if (tools.pwPlay) {
    const help = tools.pwPlay === '1.x' ? '  -a, --raw                             RAW mode' : '  -q  --quality';
    tool('pw-play', `echo 'pw-play [options] [<file>|-]'\necho '${help}'`);
  }
  if (tools.pacat) tool('pacat', 'exit 0');
  if (tools.aplay) tool('aplay', 'exit 0');
  return bin;
}

const auto: PlayerSettings = { player: 'auto', playerCommand: 'my-player {rate}', playbackDevice: null };
const choose = (bin: string, settings: Partial<PlayerSettings> = {}, env: NodeJS.ProcessEnv = {}) =>
  choosePlayer({ ...auto, ...settings }, systemProbe({ PATH: bin, ...env }));

describe('choosing the player (audio.player: auto)', () => {
  it('a desktop with PipeWire 1.x: pw-play, told that stdin is raw PCM', () => {
    const bin = machine({ pipewire: 'answers', pulse: 'answers', pwPlay: '1.x', pacat: true, aplay: true });
    const choice = choose(bin);
    expect(choice).toMatchObject({ kind: 'command', name: 'pw-play', reason: 'PipeWire answers' });
    expect(choice.kind === 'command' && choice.command).toBe(
      'pw-play --raw --rate={rate} --channels=1 --format=s16 --latency=20ms -',
    );
  });

  it('PipeWire 0.3 (Debian 12), whose pw-play has no --raw and reads raw PCM from "-"', () => {
    const bin = machine({ pipewire: 'answers', pulse: 'answers', pwPlay: '0.3', pacat: true, aplay: true });
    expect(choose(bin)).toMatchObject({
      name: 'pw-play',
      command: 'pw-play --rate={rate} --channels=1 --format=s16 --latency=20ms -',
    });
  });

  it('PipeWire without pw-play (pipewire-bin missing) but with its PulseAudio service: pacat', () => {
    const bin = machine({ pipewire: 'answers', pulse: 'answers', pacat: true, aplay: true });
    expect(choose(bin)).toMatchObject({ name: 'pacat', reason: 'a PulseAudio server answers' });
  });

  it('PulseAudio: pacat with 20 ms buffers', () => {
    const bin = machine({ pulse: 'answers', pacat: true, aplay: true });
    expect(choose(bin)).toMatchObject({
      name: 'pacat',
      command:
        'pacat --playback --raw --format=s16le --channels=1 --rate={rate} --latency-msec={bufferMs} --verbose --client-name=hark',
    });
  });

  it('sound servers installed but not running (a system service has none): aplay', () => {
    const bin = machine({ pipewire: 'down', pulse: 'down', pwPlay: '1.x', pacat: true, aplay: true });
    expect(choose(bin)).toMatchObject({
      name: 'aplay',
      reason: 'no sound server answers: ALSA',
      command: 'aplay -q -t raw -f S16_LE -c 1 -r {rate} --buffer-time=100000',
    });
  });

  it('an ALSA device name in audio.playbackDevice plays through aplay on that device, even with PipeWire', () => {
    const bin = machine({ pipewire: 'answers', pwPlay: '1.x', aplay: true });
    expect(choose(bin, { playbackDevice: 'plughw:CARD=Headphones,DEV=0' })).toMatchObject({
      name: 'aplay',
      command: 'aplay -q -t raw -f S16_LE -c 1 -r {rate} --buffer-time=100000 -D "plughw:CARD=Headphones,DEV=0"',
    });
  });

  it('a sink name in audio.playbackDevice is the target of pw-play or pacat', () => {
    const sink = 'alsa_output.usb-Jabra_SPEAK_410-00.analog-stereo';
    const pipewire = machine({ pipewire: 'answers', pwPlay: '1.x', aplay: true });
    expect(choose(pipewire, { playbackDevice: sink })).toMatchObject({
      command: `pw-play --raw --rate={rate} --channels=1 --format=s16 --latency=20ms "--target=${sink}" -`,
    });
    const pulse = machine({ pulse: 'answers', pacat: true });
    expect(choose(pulse, { playbackDevice: sink })).toMatchObject({ command: expect.stringMatching(/ "--device=/) });
  });

  it('nothing at all: aplay, with the package to install as the reason', () => {
    expect(choose(machine({}))).toMatchObject({ name: 'aplay', reason: 'no player found: aplay is in alsa-utils' });
  });

  describe('without pw-cli or pactl, by the servers’ sockets', () => {
    const servers: Server[] = [];
    afterAll(() => servers.forEach((s) => s.close()));
    const listen = (path: string) =>
      new Promise<void>((resolve) => {
        const server = createServer().listen(path, resolve);
        servers.push(server);
      });

    it('$XDG_RUNTIME_DIR/pipewire-0 is a socket: pw-play; pulse/native is one: pacat; neither: aplay', async () => {
      const runtime = join(root, 'runtime');
      mkdirSync(join(runtime, 'pulse'), { recursive: true });
      const bin = machine({ pipewire: 'answers', pulse: 'answers', pwCli: false, pactl: false });
      writeFileSync(join(bin, 'pw-play'), '#!/bin/sh\n');
      chmodSync(join(bin, 'pw-play'), 0o755);
      writeFileSync(join(bin, 'pacat'), '#!/bin/sh\n');
      chmodSync(join(bin, 'pacat'), 0o755);
      expect(choose(bin, {}, { XDG_RUNTIME_DIR: runtime })).toMatchObject({ name: 'aplay' });
      await listen(join(runtime, 'pulse', 'native'));
      expect(choose(bin, {}, { XDG_RUNTIME_DIR: runtime })).toMatchObject({ name: 'pacat' });
      await listen(join(runtime, 'pipewire-0'));
      expect(choose(bin, {}, { XDG_RUNTIME_DIR: runtime })).toMatchObject({ name: 'pw-play' });
    });
  });
});

describe('choosing the player (named)', () => {
  const bin = machine({ pipewire: 'answers', pwPlay: '1.x', pacat: true, aplay: true });

  it('speaker, command, or one of the three players by name, whatever runs', () => {
    expect(choose(bin, { player: 'speaker' })).toEqual({
      kind: 'speaker',
      device: null,
      reason: 'audio.player is speaker',
    });
    expect(choose(bin, { player: 'command' })).toMatchObject({ name: 'command', command: 'my-player {rate}' });
    expect(choose(bin, { player: 'pacat' })).toMatchObject({ name: 'pacat', reason: 'audio.player is pacat' });
    expect(choose(bin, { player: 'aplay', playbackDevice: 'hw:1,0' })).toMatchObject({
      command: expect.stringMatching(/-D "hw:1,0"$/),
    });
  });
});

describe('createPlayer', () => {
  it('audio.player: speaker without the module: says so once, with the fix, and plays through the auto choice', () => {
    const config = defaultConfig();
    config.audio.player = 'speaker';
    const logger = createMemoryLogger();
    const probe = systemProbe({ PATH: machine({ aplay: true }) });
    const player = createPlayer(config, {}, logger, probe, () => false);
    expect(player).toBeInstanceOf(CommandPlayer);
    expect(logger.lines.map((l) => [l.event, l.using ?? l.player])).toEqual([
      ['player.unavailable', 'aplay'],
      ['player.chosen', 'aplay'],
    ]);
    expect(logger.lines[0]?.fix).toMatch(/npm install -g speaker/);
  });

  it('names where the sound goes as the user knows it: the program chosen for auto, or the file', async () => {
    const config = defaultConfig();
    const probe = systemProbe({ PATH: machine({ aplay: true }) });
    const player = createPlayer(config, {}, createMemoryLogger(), probe, () => false);
    expect(player.destination).toBe('aplay');
    await player.close();
    const file = createPlayer(config, { output: '/tmp/hark-reply.wav', fast: true }, createMemoryLogger());
    expect(file.destination).toBe('/tmp/hark-reply.wav');
    await file.close(true);
  });
});
