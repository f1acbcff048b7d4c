import { ffmpegPath } from '../../audio/ffmpeg.js';
import { API_KEY_FIX, type LoadedConfig } from '../../config/load.js';
import type { HarkConfig } from '../../config/schema.js';
import { SileroVad } from '../../listen/silero-vad.js';
import { ServiceError } from '../../service/service-error.js';
import type { Service } from '../../service/index.js';
import { prepareReference } from '../../voice/reference.js';
import { runChild } from '../../system/spawn.js';
import { findOnPath } from '../../system/find-on-path.js';
import { heapTrim } from '../../system/heap-trim.js';
import { checkCapture, checkPlaybackDevices, checkPlayer } from './doctor-audio.js';
import { fail, ok, skip, type CheckResult } from './doctor-result.js';
import { checkMqtt } from './mqtt-check.js';
import { checkWakeWord } from './wake-check.js';
import { checkListeningCost } from './listening-cost.js';
import { exposureProblem } from '../../web/access.js';

export type { CheckResult } from './doctor-result.js';

export interface DoctorInput {
  loaded: LoadedConfig | undefined;
  configError: Error | undefined;
  service: Service | undefined;
  /** A key to send: configured, or the built-in stand-in's. */
  hasKey: boolean;
  /** Run by `doctor --as-service`, as the service's user: also check what the unit's sandbox hides. */
  inService?: boolean;
  /**
   * Asked from the running daemon (its status page): the microphone and player are in use, so
   * the loop says how they are doing instead of their being opened a second time.
   */
  running?: { capture: CheckResult; player: CheckResult; mqtt?: CheckResult | undefined };
}

function checkNode(): CheckResult {
  // undici 7 needs 20.18.1. The platform says which of onnxruntime-node's builds hark loads.
  const [major = 0, minor = 0, patch = 0] = process.versions.node.split('.').map(Number);
  const detail = `v${process.versions.node} (${process.platform}-${process.arch})`;
  return major > 20 || (major === 20 && (minor > 18 || (minor === 18 && patch >= 1)))
    ? ok('node', detail)
    : fail('node', detail, 'install Node.js 20.18.1 or newer (Debian 13 / Raspberry Pi OS trixie: apt install nodejs)');
}

function checkRecorder(recorder: string): CheckResult {
  const binary = recorder === 'arecord' ? 'arecord' : recorder;
  const pkg = recorder === 'arecord' ? 'alsa-utils' : 'sox';
  return findOnPath(binary, process.env.PATH ?? '')
    ? ok('recorder', `${binary} found`)
    : fail('recorder', `${binary} not on PATH`, `sudo apt install ${pkg}`);
}

function checkFfmpeg(): CheckResult {
  try {
    const path = ffmpegPath();
    const version = runChild(path, ['-version']).stdout.split('\n')[0] ?? '';
    return ok('ffmpeg', version.replace(/ Copyright.*/, ''));
  } catch (error) {
    return fail('ffmpeg', (error as Error).message, 'sudo apt install ffmpeg');
  }
}

/** Between turns hark hands what it freed back to the system (glibc's malloc_trim, hark's own addon). */
function checkHeapTrim(): CheckResult {
  const trimmer = heapTrim();
  return trimmer.available
    ? ok('memory', 'what a turn freed goes back to the system between turns (malloc_trim)')
    : skip('memory', `not trimmed between turns, so a few MiB more stay resident: ${trimmer.reason}`);
}

/** Silero runs on hark's own kernels (WebAssembly), the same on every architecture Node runs on. */
export async function checkVad(engine: string): Promise<CheckResult> {
  if (engine === 'energy') return skip('VAD model', 'vad.engine is energy');
  try {
    const vad = await SileroVad.load({ capDbfs: -60, marginDb: 6 });
    await vad.probability(new Int16Array(512));
    await vad.close();
    return ok('VAD model', 'Silero v5 loads and runs');
  } catch (error) {
    return fail(
      'VAD model',
      `${(error as Error).message.split('\n')[0]} (hark uses the energy VAD meanwhile)`,
      'reinstall hark (sudo npm install -g ./hark-<version>.tgz): its Silero model or its WebAssembly kernels are damaged; or set vad.engine: energy',
    );
  }
}

async function checkReference(config: HarkConfig): Promise<CheckResult> {
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

/** hark.service hides home directories (ProtectHome=yes): a file there cannot be read by the service. */
function checkSandbox(config: HarkConfig): CheckResult {
  const hidden = [config.voice.reference].filter(
    (p): p is string => p !== null && /^\/(home|root|run\/user)(\/|$)/.test(p),
  );
  return hidden.length
    ? fail(
        'service sandbox',
        `hidden from the service: ${hidden.join(', ')}`,
        'move it under /etc/hark (ProtectHome=yes hides /home, /root and /run/user)',
      )
    : ok('service sandbox', 'no configured file is under /home, /root or /run/user');
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
      return fail('service', `${service.transport.baseUrl}: key rejected (${error.type})`, API_KEY_FIX);
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
  const results: CheckResult[] = [checkNode(), checkFfmpeg(), checkHeapTrim()];
  if (input.configError || !input.loaded) {
    results.push(
      fail('config', input.configError?.message ?? 'not loaded', 'fix the file and field named; `hark config check`'),
    );
    return results;
  }
  const { config } = input.loaded;
  const pageProblem = config.web.enabled ? exposureProblem(config.web.listen, input.loaded.webToken) : undefined;
  results.push(
    pageProblem
      ? fail('config', pageProblem, 'the status page would not start, and with it `hark run`')
      : ok('config', `valid (${input.loaded.sources.join(' <- ')})`),
  );
  results.push(checkRecorder(config.audio.recorder));
  results.push(input.running?.capture ?? (await checkCapture(config)));
  results.push(checkPlaybackDevices());
  results.push(input.running?.player ?? (await checkPlayer(config)));
  results.push(await checkVad(config.vad.engine));
  results.push(await checkWakeWord(config));
  results.push(await checkListeningCost(config));
  results.push(await checkReference(config));
  if (input.inService) results.push(checkSandbox(config));
  results.push(await checkService(input));
  results.push(input.running?.mqtt ?? (await checkMqtt(config)));
  return results;
}
