import type { Observable } from 'rxjs';
import { loadEarcons, silentEarcons } from '../audio/earcons.js';
import { fileSource } from '../audio/file-source.js';
import { micSource } from '../audio/mic-source.js';
import { FilePlayer } from '../audio/file-player.js';
import { CommandPlayer } from '../audio/command-player.js';
import { SpeakerPlayer } from '../audio/speaker-player.js';
import type { Player } from '../audio/player.js';
import type { HarkConfig } from '../config/schema.js';
import { loadVad } from '../listen/load-vad.js';
import { VAD_SAMPLE_RATE_HZ } from '../listen/vad.js';
import { Assistant } from '../pipeline/assistant.js';
import { WakePhraseGate, type TurnGate } from '../pipeline/turn-gate.js';
import { servicePorts } from '../pipeline/service-ports.js';
import type { Service } from '../service/index.js';
import type { VoiceReference } from '../service/speech.js';
import type { Logger } from './logger.js';

export interface VoiceLoopOptions {
  /** Listen to this file instead of the microphone. */
  input?: string | undefined;
  /** Write what would be played to this WAV instead of playing it. */
  output?: string | undefined;
  /** Take the input file as fast as possible (turns then queue instead of overlapping). */
  fast?: boolean | undefined;
  reference?: VoiceReference | undefined;
  gate?: TurnGate | undefined;
}

export interface VoiceLoop {
  assistant: Assistant;
  player: Player;
  /** Settles when the input ends and the last turn is over, or after `stop()`. */
  done: Promise<void>;
  /** Stops in reverse order of starting: the turn (cancelled), the player, the VAD. */
  stop(): Promise<void>;
}

export function createPlayer(config: HarkConfig, options: VoiceLoopOptions, logger: Logger): Player {
  const rate = config.speech.sampleRateHz;
  if (options.output) return new FilePlayer(options.output, rate, !options.fast);
  if (config.audio.player === 'command') return new CommandPlayer(config.audio.playerCommand, rate, logger);
  return new SpeakerPlayer(rate, config.audio.playbackDevice, logger);
}

export function createSource(config: HarkConfig, options: VoiceLoopOptions, logger: Logger): Observable<Buffer> {
  if (options.input) return fileSource(options.input, { sampleRateHz: VAD_SAMPLE_RATE_HZ, realtime: !options.fast });
  return micSource({
    recorder: config.audio.recorder,
    device: config.audio.captureDevice,
    sampleRateHz: VAD_SAMPLE_RATE_HZ,
    retryMaxMs: config.audio.micRetryMaxMs,
    logger,
  });
}

/** Starts the voice loop with real components: in order VAD, player, ports, source, assistant. */
export async function startVoiceLoop(
  config: HarkConfig,
  service: Service,
  logger: Logger,
  options: VoiceLoopOptions = {},
): Promise<VoiceLoop> {
  const vad = await loadVad(config.vad, logger);
  const player = createPlayer(config, options, logger);
  const earcons = config.audio.earcons ? loadEarcons(player, logger) : silentEarcons;
  const assistant = new Assistant({
    config,
    source: createSource(config, options, logger),
    vad,
    ...servicePorts(service, config, options.reference),
    player,
    earcons,
    logger,
    queueTurns: options.fast === true,
    gate: options.gate ?? new WakePhraseGate(config.listen, logger),
  });
  let finish: () => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const subscription = assistant.run().subscribe({ complete: () => finish(), error: (error: unknown) => fail(error) });
  logger.info('hark.listening', {
    input: options.input ?? `microphone (${config.audio.recorder})`,
    output: options.output ?? config.audio.player,
    vad: vad.name,
    api: config.service.api,
    model: config.chat.model,
    bargeIn: config.bargeIn.enabled && !options.fast,
  });
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    subscription.unsubscribe();
    await player.close();
    await vad.close();
    finish();
  };
  void done.then(
    () => stop(),
    () => stop(),
  );
  return { assistant, player, done, stop };
}
