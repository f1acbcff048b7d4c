import { concat, ignoreElements, lastValueFrom, tap } from 'rxjs';
import type { LoadedConfig } from '../config/load.js';
import { shownConfig } from '../config/secret-values.js';
import type { Service } from '../service/index.js';
import type { LogTail } from '../system/log-tail.js';
import type { Logger } from '../system/logger.js';
import { ControlRefused, type PageControls } from '../web/server.js';
import type { PageEvent } from '../web/wire.js';
import { VOICE_SAMPLE } from './configured-voice.js';
import { runDoctor, type CheckResult } from './doctor.js';
import { fail, ok } from './doctor-result.js';
import type { VoiceLoop } from './voice-loop.js';

/** Without audio for this long, the microphone is reported as silent in the doctor's table. */
const NO_AUDIO_MS = 3000;

export interface ControlsSetup {
  loaded: LoadedConfig;
  service: Service;
  /** A key will be sent (the configured one, or the stand-in's). */
  hasKey: boolean;
  logger: Logger;
  logTail?: LogTail | undefined;
  /** Which voice hark speaks with, in words. */
  voice: string;
}

/**
 * The status page's buttons, acting on the running voice loop (none until it has started): the
 * voice test plays through the loop's own player (the echo canceller hears it too) with the
 * microphone muted meanwhile, so hark does not answer its own test.
 */
export function pageControls(
  setup: ControlsSetup,
  loop: () => VoiceLoop | undefined,
  page: { state(): string; push(event: PageEvent): void },
): PageControls {
  const { loaded, logger } = setup;
  let muted = false;
  let testing = false;
  const running = (): VoiceLoop => {
    const started = loop();
    if (!started) throw new ControlRefused('hark is still starting');
    return started;
  };
  return {
    async voiceTest(asked) {
      const started = running();
      if (testing) throw new ControlRefused('a voice test is already playing');
      if (page.state() !== 'listening') {
        throw new ControlRefused(`hark is ${page.state()}: try the voice test when it is listening`);
      }
      const text = asked ?? VOICE_SAMPLE;
      const { player } = started;
      const failedBefore = player.timesFailed;
      const before = player.writtenSamples();
      testing = true;
      started.mute(true);
      logger.info('web.voice_test', { text });
      try {
        const spoken = started.synthesizer.synthesize(text).pipe(tap((pcm) => player.write(pcm)));
        await lastValueFrom(concat(spoken, player.queuedBelow(0)).pipe(ignoreElements()), { defaultValue: undefined });
      } finally {
        testing = false;
        started.mute(muted);
      }
      if (player.timesFailed !== failedBefore) {
        throw new Error(`playback failed: ${player.lastFailure ?? 'unknown'}`);
      }
      const playedMs = Math.round(((player.writtenSamples() - before) / player.sampleRateHz) * 1000);
      const result = { text, voice: setup.voice, playedMs, player: String(started.about.output) };
      page.push({ type: 'voice-test', ...result });
      return result;
    },
    mute(on) {
      const started = running();
      muted = on;
      if (!testing) started.mute(on);
      logger.info('mic.muted', { muted: on, by: 'web' });
    },
    stopSpeaking() {
      running().stopSpeaking();
      logger.info('web.stop', { state: page.state() });
    },
    config() {
      return {
        read: loaded.sources,
        secrets: {
          apiKey: loaded.apiKey ? 'set (not shown)' : 'not set',
          webToken: loaded.webToken ? 'set (not shown)' : 'not set',
        },
        config: shownConfig(loaded.config),
      };
    },
    async doctor() {
      const started = loop();
      return runDoctor({
        loaded,
        configError: undefined,
        service: setup.service,
        hasKey: setup.hasKey,
        running: started ? { capture: captureNow(started), player: playerNow(started) } : undefined,
      });
    },
    log: () => setup.logTail?.recent() ?? [],
  };
}

function captureNow(loop: VoiceLoop): CheckResult {
  const at = loop.lastAudioAt();
  const input = String(loop.about.input);
  if (at === undefined) return fail('capture device', `no audio yet from ${input}`, 'see the log: mic.failed says why');
  const agoMs = Math.round(performance.now() - at);
  if (agoMs > NO_AUDIO_MS && !input.startsWith('microphone')) return ok('capture device', `${input}: read to its end`);
  return agoMs > NO_AUDIO_MS
    ? fail(
        'capture device',
        `no audio from the ${input} for ${Math.round(agoMs / 1000)} s`,
        'see the log (mic.failed); list microphones with `hark devices` and set audio.captureDevice',
      )
    : ok('capture device', `hark is listening to ${input} (audio ${agoMs} ms ago)`);
}

function playerNow(loop: VoiceLoop): CheckResult {
  const output = String(loop.about.output);
  return loop.player.lastFailure
    ? fail('player', `${output}: ${loop.player.lastFailure}`, 'see the log (player.failed); `hark devices` lists sinks')
    : ok('player', `hark plays through ${output}${loop.player.writtenSamples() ? '' : ' (nothing played yet)'}`);
}
