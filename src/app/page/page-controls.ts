import { concat, ignoreElements, lastValueFrom, tap } from 'rxjs';
import { PLAYBACK_FIX } from '../../audio/playback-error.js';
import type { LoadedConfig } from '../../config/load.js';
import { shownConfig } from '../../config/secret-values.js';
import type { Service } from '../../service/index.js';
import type { LogTail } from '../../system/log-tail.js';
import type { Logger } from '../../system/logger.js';
import { ControlRefused, type PageControls } from '../../web/server.js';
import { INPUT_ENDED, type PageEvent } from '../../web/page-json.js';
import { VOICE_SAMPLE } from '../adapters/configured-voice.js';
import { runDoctor, type CheckResult } from '../doctor/doctor.js';
import { fail, ok } from '../doctor/doctor-result.js';
import { failureFix } from '../adapters/log-events.js';
import type { VoiceLoop } from '../compose/voice-loop.js';

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
  /** The stand-in started for --sim, which is then the service hark talks to. */
  sim?: { url: string } | undefined;
}

/**
 * The status page's buttons, acting on the running voice loop (none until it has started): the
 * voice test plays through the loop's own player (the echo canceller hears it too) with the
 * microphone muted meanwhile, so hark does not answer its own test. How a voice test went,
 * played or failed, is an entry of the conversation.
 */
export function pageControls(
  setup: ControlsSetup,
  loop: () => VoiceLoop | undefined,
  page: { state(): string; push(event: PageEvent): void },
  /** Whether MQTT is connected, when it is on. */
  mqtt: () => CheckResult | undefined = () => undefined,
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
      const state = page.state();
      // After a file run's input, the player stays open for it.
      if (state !== 'listening' && state !== INPUT_ENDED) {
        throw new ControlRefused(`hark is ${state}: try the voice test when it is listening`);
      }
      const text = asked ?? VOICE_SAMPLE;
      const { player } = started;
      const tried = { text, voice: setup.voice, player: String(started.about.output) };
      const failedBefore = player.timesFailed;
      const before = player.writtenSamples();
      testing = true;
      // As it is now: Home Assistant may have muted it.
      muted = started.isMuted();
      started.mute(true);
      logger.info('web.voice_test', { text });
      try {
        const spoken = started.synthesizer.synthesize(text).pipe(tap((pcm) => player.write(pcm)));
        await lastValueFrom(concat(spoken, player.queuedBelow(0)).pipe(ignoreElements()), { defaultValue: undefined });
        if (player.timesFailed !== failedBefore) {
          throw Object.assign(new Error(`playback failed: ${player.lastFailure ?? 'unknown'}`), { fix: PLAYBACK_FIX });
        }
      } catch (error) {
        const { message, fix = failureFix(error as Error) } = error as Error & { fix?: string };
        logger.warn('web.voice_test_failed', { error: message, ...(fix ? { fix } : {}) });
        page.push({ type: 'voice-test', ...tried, failed: message, ...(fix ? { fix } : {}) });
        throw error;
      } finally {
        testing = false;
        started.mute(muted);
      }
      const playedMs = Math.round(((player.writtenSamples() - before) / player.sampleRateHz) * 1000);
      const result = { ...tried, playedMs };
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
      // The service hark talks to: under --sim, the stand-in it started, not service.baseUrl.
      const { sim } = setup;
      const shown = shownConfig(loaded.config);
      return {
        read: sim ? [...loaded.sources, '--sim (the built-in stand-in is the service)'] : loaded.sources,
        secrets: {
          apiKey: sim ? "the stand-in's own" : loaded.apiKey ? 'set (not shown)' : 'not set',
          webToken: loaded.webToken ? 'set (not shown)' : 'not set',
        },
        config: sim ? { ...shown, service: { ...shown.service, baseUrl: sim.url } } : shown,
      };
    },
    async doctor() {
      const started = loop();
      return runDoctor({
        loaded,
        configError: undefined,
        service: setup.service,
        hasKey: setup.hasKey,
        running: started ? { capture: captureNow(started), player: playerNow(started), mqtt: mqtt() } : undefined,
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

/** The doctor's row for the player of the running loop: how its playing goes. */
export function playerNow(loop: VoiceLoop): CheckResult {
  const output = String(loop.about.output);
  return loop.player.lastFailure
    ? fail('player', `${output}: ${loop.player.lastFailure}`, PLAYBACK_FIX)
    : ok('player', `hark plays through ${output}${loop.player.writtenSamples() ? '' : ' (nothing played yet)'}`);
}
