import { Subject, TimeoutError, lastValueFrom, merge, take, timeout, toArray } from 'rxjs';
import { lastWords } from '../../audio/child-process.js';
import { choosePlayer, systemProbe, type SoundProbe } from '../../audio/choose-player.js';
import { findOnPath } from '../../system/find-on-path.js';
import { commandWords } from '../../audio/command-player.js';
import { alsaDevices, serverDevices } from '../../audio/devices.js';
import { micSource } from '../../audio/mic-source.js';
import {
  SPEAKER_HOST,
  SPEAKER_INSTALL_HINT,
  SPEAKER_UNAVAILABLE,
  speakerDeath,
  speakerInstalled,
} from '../../audio/speaker-player.js';
import type { HarkConfig } from '../../config/schema.js';
import { silentLogger, type Logger } from '../../system/logger.js';
import { forkChild, runChild, spawnChild } from '../../system/spawn.js';
import { fail, ok, type CheckResult } from './doctor-result.js';

/** How long a player or recorder may take to show it works. */
const PROBE_MS = 5000;
const PACKAGE_OF: Record<string, string> = {
  aplay: 'alsa-utils',
  pacat: 'pulseaudio-utils',
  'pw-play': 'pipewire-bin',
};

/** How the player check sees the machine; tests give their own. */
export interface PlayerCheckOptions {
  probe?: SoundProbe;
  arch?: string;
  /** A stand-in for the `speaker` module, and whether one is installed. */
  speakerModule?: string;
  speakerInstalled?: boolean;
}

/** Plays 0.2 s of silence through the player hark would choose, so a wrong device shows here and not at the first reply. */
export async function checkPlayer(config: HarkConfig, options: PlayerCheckOptions = {}): Promise<CheckResult> {
  const probe = options.probe ?? systemProbe();
  const choice = choosePlayer(config.audio, probe);
  if (choice.kind === 'speaker') return checkSpeaker(config, options);
  const rate = config.speech.sampleRateHz;
  const [binary = '', ...args] = commandWords(choice.command, rate);
  const label = `${choice.name === 'command' ? binary : choice.name} (${choice.reason})`;
  const path = findOnPath(binary, probe.env.PATH ?? '');
  if (!path) {
    const pkg = PACKAGE_OF[binary];
    return fail(
      'player',
      `${label}: ${binary || '(empty command)'} is not installed`,
      pkg ? `sudo apt install ${pkg}` : 'install it, or fix audio.playerCommand',
    );
  }
  const { code, stderr } = await playSilence(path, args, rate);
  if (code === 0) return ok('player', `${label} plays`);
  const why = lastWords(stderr) || `exit ${code ?? 'on a signal'}`;
  const fix =
    choice.name === 'aplay'
      ? 'pick a device with `hark devices` and set audio.playbackDevice (plughw:CARD=<id>,DEV=0); a device busy elsewhere must be freed'
      : choice.name === 'command'
        ? 'fix audio.playerCommand (it must play raw 16-bit mono PCM from stdin)'
        : 'pick a sink with `hark devices` and set audio.playbackDevice; a system service cannot reach a user’s sound server (use systemd/hark-user.service)';
  return fail('player', `${label}: ${why}`, fix);
}

function playSilence(binary: string, args: string[], rate: number): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawnChild(binary, args, { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_MS);
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ code: 127, stderr: error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(Buffer.alloc(Math.round(rate * 0.2) * 2));
  });
}

/** `speaker` in its host: a missing module and a missing device are different problems with different fixes. */
function checkSpeaker(config: HarkConfig, options: PlayerCheckOptions): Promise<CheckResult> {
  if (!(options.speakerInstalled ?? speakerInstalled())) {
    const arm64 = (options.arch ?? process.arch) === 'arm64';
    return Promise.resolve(
      fail(
        'player',
        'speaker: the speaker module is not installed',
        arm64
          ? 'speaker does not build on 64-bit ARM (its bundled mpg123 has no arm64 config): set audio.player: auto'
          : SPEAKER_INSTALL_HINT,
      ),
    );
  }
  const rate = config.speech.sampleRateHz;
  return new Promise((resolve) => {
    const args = [
      String(rate),
      config.audio.playbackDevice ?? '',
      ...(options.speakerModule ? [options.speakerModule] : []),
    ];
    const host = forkChild(SPEAKER_HOST, args, {
      stdio: ['pipe', 'ignore', 'pipe', 'ipc'],
      execArgv: [],
    });
    let stderr = '';
    host.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => host.kill('SIGKILL'), PROBE_MS);
    host.on('message', (m: { type: string }) => {
      if (m.type !== 'ready') return;
      const bytes = Math.round(rate * 0.2) * 2;
      const header = Buffer.alloc(8);
      header.writeUInt32LE(bytes, 4);
      host.stdin?.end(Buffer.concat([header, Buffer.alloc(bytes)]));
    });
    host.on('exit', (code, signal) => {
      clearTimeout(timer);
      const device = config.audio.playbackDevice ?? 'the default device';
      if (code === 0) resolve(ok('player', `speaker opened ${device}`));
      else if (code === SPEAKER_UNAVAILABLE) {
        resolve(
          fail(
            'player',
            `speaker: ${lastWords(stderr)}`,
            'reinstall it: sudo npm install -g speaker (or set audio.player: auto)',
          ),
        );
      } else {
        resolve(
          fail(
            'player',
            `speaker: ${speakerDeath(code, signal, stderr)}`,
            'plug in a speaker, pick one with `hark devices` and set audio.playbackDevice, or set audio.player: auto',
          ),
        );
      }
    });
  });
}

/** Records three chunks; when that fails, the recorder's own last words say why. */
export async function checkCapture(config: HarkConfig): Promise<CheckResult> {
  const device = config.audio.captureDevice ?? 'the default device';
  // The microphone reopens a failed recorder; the doctor wants the first failure, at once.
  const failed = new Subject<never>();
  const logger: Logger = {
    ...silentLogger,
    warn: (event, fields) => {
      const error = fields?.error;
      if (event === 'mic.failed') failed.error(new Error(typeof error === 'string' ? error : 'the recorder failed'));
    },
  };
  try {
    const mic = micSource({
      recorder: config.audio.recorder,
      device: config.audio.captureDevice,
      sampleRateHz: 16000,
      retryMaxMs: 60_000,
      logger,
    });
    const chunks = await lastValueFrom(merge(mic, failed).pipe(take(3), toArray(), timeout(3000)));
    const bytes = chunks.reduce((n, c) => n + c.length, 0);
    return ok('capture device', `${config.audio.recorder} records from ${device} (${bytes} bytes)`);
  } catch (error) {
    const message = error instanceof TimeoutError ? 'no audio within 3 s' : (error as Error).message;
    const words = config.audio.recorder === 'arecord' ? arecordWords(config.audio.captureDevice) : '';
    const detail = words && !message.includes(words) ? `${message}: ${words}` : message;
    return fail(
      'capture device',
      `${config.audio.recorder} cannot record from ${device}: ${detail}`,
      'plug in a microphone, list them with `hark devices`, and set audio.captureDevice',
    );
  }
}

/** What arecord itself says about the device ("Device or resource busy", "Unknown PCM"), from a 0.1 s recording. */
function arecordWords(device: string | null): string {
  const args = ['-q', '-f', 'S16_LE', '-r', '16000', '-c', '1', '-t', 'raw', '-s', '1600'];
  if (device) args.unshift('-D', device);
  const result = runChild('arecord', args, { timeout: 3000, stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.error) return result.error.message;
  return result.status === 0 ? '' : lastWords(result.stderr ?? '');
}

export function checkPlaybackDevices(): CheckResult {
  const devices = [...alsaDevices('playback'), ...serverDevices().filter((d) => d.kind === 'playback')];
  return devices.length
    ? ok('playback devices', devices.map((d) => d.name).join(', '))
    : fail(
        'playback devices',
        'no playback device found',
        'plug in a speaker or headphones; `aplay -l` should list a card',
      );
}
