import { take, lastValueFrom, timeout, toArray } from 'rxjs';
import { ffmpegPath } from '../audio/ffmpeg.js';
import { micSource } from '../audio/mic-source.js';
import { commandWords } from '../audio/command-player.js';
import { SPEAKER_HOST } from '../audio/speaker-player.js';
import type { LoadedConfig } from '../config/load.js';
import { SileroVad } from '../listen/silero-vad.js';
import { ServiceError } from '../service/errors.js';
import type { Service } from '../service/index.js';
import { prepareReference } from '../voice/reference.js';
import { forkChild, runChild } from '../system/spawn.js';
import { alsaDevices, pulseDevices } from '../audio/devices.js';
import { silentLogger } from '../system/logger.js';

export interface CheckResult {
  check: string;
  status: 'ok' | 'fail' | 'skip';
  detail: string;
  fix?: string;
}

export interface DoctorInput {
  loaded: LoadedConfig | undefined;
  configError: Error | undefined;
  service: Service | undefined;
  /** A key to send: configured, or the built-in stand-in's. */
  hasKey: boolean;
}

const ok = (check: string, detail: string): CheckResult => ({ check, status: 'ok', detail });
const fail = (check: string, detail: string, fix: string): CheckResult => ({ check, status: 'fail', detail, fix });
const skip = (check: string, detail: string): CheckResult => ({ check, status: 'skip', detail });

function onPath(binary: string): boolean {
  return runChild('sh', ['-c', `command -v ${binary}`], { stdio: 'ignore' }).status === 0;
}

function checkNode(): CheckResult {
  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  return major > 20 || (major === 20 && minor >= 18)
    ? ok('node', `v${process.versions.node}`)
    : fail(
        'node',
        `v${process.versions.node}`,
        'install Node.js 20.18 or newer (Debian 13 / Raspberry Pi OS trixie: apt install nodejs)',
      );
}

function checkRecorder(recorder: string): CheckResult {
  const binary = recorder === 'arecord' ? 'arecord' : recorder;
  const pkg = recorder === 'arecord' ? 'alsa-utils' : 'sox';
  return onPath(binary)
    ? ok('recorder', `${binary} found`)
    : fail('recorder', `${binary} not on PATH`, `sudo apt install ${pkg}`);
}

function checkFfmpeg(): CheckResult {
  try {
    const path = ffmpegPath();
    const version = runChild(path, ['-version']).stdout.split('\n')[0] ?? '';
    return ok('ffmpeg', version.replace(/ Copyright.*/, ''));
  } catch (error) {
    return fail(
      'ffmpeg',
      (error as Error).message,
      'sudo apt install ffmpeg (or npm install again for the bundled one)',
    );
  }
}

/** Loads `speaker` in a child process (it aborts its process when no device is usable) and plays 0.2 s of silence. */
function checkPlayer(config: LoadedConfig['config']): Promise<CheckResult> {
  if (config.audio.player === 'command') {
    const [binary] = commandWords(config.audio.playerCommand, config.speech.sampleRateHz);
    return Promise.resolve(
      binary && onPath(binary)
        ? ok('player', `${binary} found`)
        : fail(
            'player',
            `${binary ?? '(empty)'} not on PATH`,
            'install it (aplay: alsa-utils, pacat: pulseaudio-utils, pw-play: pipewire-bin) or fix audio.playerCommand',
          ),
    );
  }
  return new Promise((resolve) => {
    const host = forkChild(SPEAKER_HOST, [String(config.speech.sampleRateHz), config.audio.playbackDevice ?? ''], {
      stdio: ['pipe', 'ignore', 'pipe', 'ipc'],
      execArgv: [],
    });
    let stderr = '';
    host.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => host.kill('SIGKILL'), 5000);
    host.on('message', (m: { type: string }) => {
      if (m.type !== 'ready') return;
      const header = Buffer.alloc(8);
      header.writeUInt32LE(0, 0);
      header.writeUInt32LE(config.speech.sampleRateHz * 0.4, 4);
      host.stdin?.write(Buffer.concat([header, Buffer.alloc(config.speech.sampleRateHz * 0.4)]));
      host.stdin?.end();
    });
    host.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(ok('player', `speaker opened ${config.audio.playbackDevice ?? 'the default device'}`));
      else {
        const why = signal === 'SIGABRT' ? 'no usable output device' : `exit ${code ?? signal}`;
        const last = stderr.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '';
        resolve(
          fail(
            'player',
            `speaker: ${why}${last ? ` (${last})` : ''}`,
            'plug in a speaker, pick one with `hark devices` and set audio.playbackDevice, or set audio.player: command',
          ),
        );
      }
    });
  });
}

async function checkCapture(config: LoadedConfig['config']): Promise<CheckResult> {
  const device = config.audio.captureDevice ?? 'the default device';
  try {
    const chunks = await lastValueFrom(
      micSource({
        recorder: config.audio.recorder,
        device: config.audio.captureDevice,
        sampleRateHz: 16000,
        retryMaxMs: 60_000,
        logger: silentLogger,
      }).pipe(take(3), toArray(), timeout(3000)),
    );
    return ok(
      'capture device',
      `${config.audio.recorder} records from ${device} (${chunks.reduce((n, c) => n + c.length, 0)} bytes)`,
    );
  } catch {
    return fail(
      'capture device',
      `${config.audio.recorder} cannot record from ${device}`,
      'plug in a microphone, list them with `hark devices`, and set audio.captureDevice',
    );
  }
}

function checkPlaybackDevices(): CheckResult {
  const devices = [...alsaDevices('playback'), ...pulseDevices().filter((d) => d.kind === 'playback')];
  return devices.length
    ? ok('playback devices', devices.map((d) => d.name).join(', '))
    : fail(
        'playback devices',
        'no playback device found',
        'plug in a speaker or headphones; `aplay -l` should list a card',
      );
}

async function checkVad(engine: string): Promise<CheckResult> {
  if (engine === 'energy') return skip('VAD model', 'vad.engine is energy');
  try {
    const vad = await SileroVad.load({ capDbfs: -60, marginDb: 6 });
    await vad.probability(new Int16Array(512));
    await vad.close();
    return ok('VAD model', 'Silero v5 loads and runs');
  } catch (error) {
    return fail(
      'VAD model',
      (error as Error).message,
      'reinstall with `npm ci` (onnxruntime-node must match this CPU); hark falls back to the energy VAD meanwhile',
    );
  }
}

async function checkReference(config: LoadedConfig['config']): Promise<CheckResult> {
  if (!config.voice.reference) return skip('voice clip', 'no voice.reference configured');
  try {
    const prepared = await prepareReference(config.voice.reference, config.voice.referenceText);
    const detail = `${(prepared.durationMs / 1000).toFixed(1)} s usable${prepared.warnings.length ? `; ${prepared.warnings.join('; ')}` : ''}`;
    return ok('voice clip', detail);
  } catch (error) {
    return fail(
      'voice clip',
      (error as Error).message,
      'use 10 to 30 s of clear speech in any audio format, with its verbatim transcript in voice.referenceText',
    );
  }
}

/** The cheapest call that proves the service is reachable and takes the key: a stream opened and closed at once. */
async function checkService(input: DoctorInput): Promise<CheckResult> {
  const { loaded, service } = input;
  if (!loaded || !service) return skip('service', 'needs a valid configuration');
  if (!input.hasKey) {
    return fail(
      'service',
      'no API key',
      'set HARK_API_KEY (environment or /etc/hark/hark.env) or a systemd credential named hark-api-key',
    );
  }
  const controller = new AbortController();
  try {
    const events = service.chat.stream(
      { model: loaded.config.chat.model, messages: [{ role: 'user', content: 'ping' }] },
      { signal: controller.signal },
    );
    await events.next();
    controller.abort();
    await events.return(undefined).catch(() => undefined);
    return ok('service', `${service.transport.baseUrl} answers and accepts the key`);
  } catch (error) {
    if (error instanceof ServiceError && error.status === 401) {
      return fail(
        'service',
        `${service.transport.baseUrl}: key rejected (${error.type})`,
        'check HARK_API_KEY: create a token in the service console',
      );
    }
    if (error instanceof ServiceError && error.status === 0) {
      return fail(
        'service',
        `cannot reach ${service.transport.baseUrl}: ${error.message}`,
        'check the network, DNS and service.baseUrl',
      );
    }
    return fail('service', (error as Error).message, 'see the message; `hark chat hello` shows the same call');
  }
}

export async function runDoctor(input: DoctorInput): Promise<CheckResult[]> {
  const results: CheckResult[] = [checkNode(), checkFfmpeg()];
  if (input.configError || !input.loaded) {
    results.push(
      fail('config', input.configError?.message ?? 'not loaded', 'fix the file and field named; `hark config check`'),
    );
    return results;
  }
  const { config } = input.loaded;
  results.push(ok('config', `valid (${input.loaded.sources.join(' <- ')})`));
  results.push(checkRecorder(config.audio.recorder));
  results.push(await checkCapture(config));
  results.push(checkPlaybackDevices());
  results.push(await checkPlayer(config));
  results.push(await checkVad(config.vad.engine));
  results.push(await checkReference(config));
  results.push(await checkService(input));
  return results;
}
