import { BehaviorSubject, Subject, distinctUntilChanged, map, share, tap, type Observable } from 'rxjs';
import { CommandPlayer } from '../../audio/command-player.js';
import { loadEarcons, silentEarcons } from '../../audio/earcons.js';
import { FilePlayer } from '../../audio/file-player.js';
import { fileSource } from '../../audio/file-source.js';
import { micSource } from '../../audio/mic-source.js';
import type { ClockedPlayer } from '../../audio/player.js';
import { SPEAKER_INSTALL_HINT, SpeakerPlayer, speakerInstalled } from '../../audio/speaker-player.js';
import { choosePlayer, systemProbe, type SoundProbe } from '../../audio/choose-player.js';
import type { HarkConfig } from '../../config/schema.js';
import type { VoiceReference } from '../../contract/wire.js';
import { VAD_SAMPLE_RATE_HZ } from '../../listen/vad.js';
import { assistant } from '../../pipeline/assistant.js';
import { betweenTurns } from '../../pipeline/between-turns.js';
import type { AssistantEvent } from '../../pipeline/events.js';
import type { Notice } from '../../pipeline/ports.js';
import type { VolumeControl } from '../../tools/mixer.js';
import type { TimerEntry } from '../../tools/timer-book.js';
import type { Service } from '../../service/index.js';
import { afterIo } from '../../system/after-io.js';
import { collectGarbage } from '../../system/collect-garbage.js';
import { trimHeap } from '../../system/heap-trim.js';
import { deadlineIn } from '../../system/deadline.js';
import type { Logger } from '../../system/logger.js';
import { Parts } from '../../system/parts.js';
import { LoadingVad } from '../adapters/loading-vad.js';
import { MODELS_LOAD_LIMIT_MS, startListening } from '../adapters/listening-models.js';
import { logEvents } from '../adapters/log-events.js';
import { logEchoAtBargeIn, setUpEcho, watchEcho } from '../adapters/echo.js';
import { warmUp } from './warm-up.js';
import { servicePorts } from '../adapters/service-ports.js';
import { startTools, volumeControlFor, type ToolsOptions } from '../tools/tools.js';

/** How long after a turn hark frees what it left: once the turn's streams have closed. */
const COLLECT_AFTER_TURN_MS = 1000;
/** And when the C heap gives it back to the system: V8 frees buffers on a helper thread after it collects. */
const TRIM_AFTER_TURN_MS = COLLECT_AFTER_TURN_MS + 500;

export interface VoiceLoopOptions {
  /** Listen to this file instead of the microphone. */
  input?: string | undefined;
  /** Write what would be played to this WAV instead of playing it. */
  output?: string | undefined;
  /** Take the input file as fast as possible (turns then queue instead of overlapping). */
  fast?: boolean | undefined;
  reference?: VoiceReference | undefined;
  /** Whether anyone looks at the meters (the status page): meters are made only then. */
  metering?: Observable<boolean> | undefined;
  /** When the input ends, keep the player open until `stop()` (the status page's voice test). */
  stayOpen?: boolean | undefined;
  /** The clock timers ring by, and where they are kept (tests: a virtual clock, a temporary directory). */
  tools?: Omit<ToolsOptions, 'player' | 'volume'> | undefined;
  /** What the home asks hark to say (Home Assistant's announcements and questions). */
  notices?: Observable<Notice> | undefined;
}

export interface VoiceLoop {
  /** Everything the loop does, as it happens (shared; the log is written from it). */
  events: Observable<AssistantEvent>;
  player: ClockedPlayer;
  /** Settles when the input ends and the last turn is over, or after `stop()`. */
  done: Promise<void>;
  /** Stops in reverse order of starting: the input and the turn (cut, and logged), tools and echo canceller, the player, the models. */
  stop(): Promise<void>;
  /** Cuts the turn under way, as a stop phrase would. */
  stopSpeaking(): void;
  /** Listens for a command without the wake word, as if it had been said (a button). */
  listen(): void;
  /** Muted, hark hears silence: nothing it hears is sent anywhere until unmuted. */
  mute(muted: boolean): void;
  readonly muted: Observable<boolean>;
  isMuted(): boolean;
  /** When the last audio came in (monotonic ms), undefined before any. */
  lastAudioAt(): number | undefined;
  /**
   * What this loop listens to and with: the fields of the `hark.listening` log line, and what
   * the models loaded while it listened turned out to be (see `modelsLoaded`).
   */
  about: Record<string, string | boolean>;
  /** Settles once the models have loaded or fallen back, `about` then saying which. */
  modelsLoaded: Promise<void>;
  synthesizer: ReturnType<typeof servicePorts>['synthesizer'];
  /** The volume of hark's output: the mixer of the player in use (the `volume` tool's). */
  volume: VolumeControl;
  /** The timers and alarms set, after every change (none when timers are off). */
  timersSet: Observable<TimerEntry[]> | undefined;
}

/**
 * The player: a file with `--output`, else what `audio.player` asks for on this machine (auto:
 * pw-play, pacat or aplay, see choose-player.ts), said in the log with the reason.
 */
export function createPlayer(
  config: HarkConfig,
  options: VoiceLoopOptions,
  logger: Logger,
  probe: SoundProbe = systemProbe(),
  hasSpeaker: () => boolean = speakerInstalled,
): ClockedPlayer {
  const rate = config.speech.sampleRateHz;
  if (options.output) return new FilePlayer(options.output, rate, !options.fast);
  let choice = choosePlayer(config.audio, probe);
  if (choice.kind === 'speaker' && !hasSpeaker()) {
    // Without this, every turn would be silent: say so once, and play through what the machine has.
    choice = choosePlayer({ ...config.audio, player: 'auto' }, probe);
    logger.error('player.unavailable', {
      player: 'speaker',
      error: 'the speaker module is not installed',
      fix: SPEAKER_INSTALL_HINT,
      using: choice.kind === 'command' ? choice.name : 'speaker',
    });
  }
  if (choice.kind === 'speaker') {
    logger.info('player.chosen', { player: 'speaker', reason: choice.reason, device: choice.device ?? 'default' });
    return new SpeakerPlayer(rate, choice.device, logger);
  }
  logger.info('player.chosen', { player: choice.name, reason: choice.reason, command: choice.command });
  return new CommandPlayer(choice.command, rate, logger);
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

/** Starts the voice loop with real components: in order the models, the player, echo and tools, ports, source, assistant. */
export async function startVoiceLoop(
  config: HarkConfig,
  service: Service,
  logger: Logger,
  options: VoiceLoopOptions = {},
): Promise<VoiceLoop> {
  // Started in order, stopped in reverse: the models, the player, then what plays through it.
  const parts = new Parts(logger);
  // The models load while hark already listens (what it hears meanwhile waits for them), so
  // start-up does not wait for them. The text stages warm up meanwhile, and MCP servers
  // connect (each waits at most 10 s; one that does not answer joins later).
  const deadline = deadlineIn(MODELS_LOAD_LIMIT_MS, `not loaded within ${MODELS_LOAD_LIMIT_MS / 1000} s`);
  const models = await parts.start('listening', () => {
    const listening = startListening(config, logger, { live: !options.fast, deadline });
    const { vad, wake } = listening;
    const stop = async () => {
      if (wake.engine === 'openwakeword') await wake.detector.close();
      await vad.close();
    };
    return { ...listening, stop };
  });
  const { vad, wake } = models;
  // Should hark not start, or the loop fail, an output file is not written (one already there stays).
  let failed = true;
  const undo = async (error: unknown): Promise<never> => {
    await parts.stop().catch(() => undefined);
    throw error;
  };
  const { player } = await parts
    .start('player', () => {
      const player = createPlayer(config, options, logger);
      return { player, stop: () => player.close(failed) };
    })
    .catch(undo);
  const volume = volumeControlFor(player, config, logger);
  const starting = [
    parts.start('echo', () => setUpEcho(config, player, logger, !options.input && !options.output)),
    config.tools.enabled
      ? parts.start('tools', () => startTools(config, logger, { ...options.tools, player, volume }))
      : Promise.resolve(undefined),
    warmUp(config),
  ] as const;
  // Should one fail, whatever else started is stopped too, once it has.
  await Promise.allSettled(starting);
  const [echo, tools] = await Promise.all(starting).catch(undo);
  // The transcript's wake phrases: what starts a turn with the phrase engine, and should the
  // wake-word models fail to load.
  const listen = { ...config.listen, wakePhrases: wake.engine === 'none' ? [] : wake.phrases };
  const earcons = config.audio.earcons ? loadEarcons(player, logger) : silentEarcons;
  const stopping = new Subject<void>();
  const stops = new Subject<void>();
  const listens = new Subject<void>();
  const muted = new BehaviorSubject(false);
  let lastAudioAt: number | undefined;
  let heard: () => void = () => undefined;
  const firstAudio = new Promise<void>((resolve) => (heard = resolve));
  const ports = servicePorts(service, config, options.reference, tools && { box: tools.registry, logger });
  const events = createSource(config, options, logger).pipe(
    tap(() => {
      if (lastAudioAt === undefined) heard();
      lastAudioAt = performance.now();
    }),
    map((chunk) => (muted.value ? Buffer.alloc(chunk.length) : chunk)),
    assistant({
      config: { ...config, bargeIn: echo.bargeIn, listen },
      vad,
      echo: echo.canceller && watchEcho(echo.canceller, logger),
      wake: wake.engine === 'openwakeword' ? wake.detector : undefined,
      ...ports,
      announcements: tools?.announcements,
      notices: options.notices,
      player,
      earcons,
      logger,
      queue: options.fast === true,
      shutdown: stopping,
      stops,
      listens,
      metering: options.metering,
      afterIo,
      now: () => performance.now(),
    }),
    tap((event) => {
      if (event.type === 'interruption' && echo.canceller) logEchoAtBargeIn(logger, event.phase, echo.canceller);
    }),
    logEvents(logger),
    share(),
  );
  let stopped: Promise<void> | undefined;
  const done = new Promise<void>((resolve, reject) => {
    events.subscribe({ complete: resolve, error: reject });
  });
  // What a turn left is freed between turns, in both threads, not held until V8 next collects.
  const collecting = events.pipe(betweenTurns(COLLECT_AFTER_TURN_MS)).subscribe(() => {
    collectGarbage();
    models.collectGarbage();
  });
  collecting.add(events.pipe(betweenTurns(TRIM_AFTER_TURN_MS)).subscribe(() => void trimHeap()));
  const stopCollecting = (): void => collecting.unsubscribe();
  done.then(stopCollecting, stopCollecting);
  await tools?.loadTimers();
  // Every caller waits for the one stop to finish: the player's file is complete only after its close.
  const stop = (): Promise<void> =>
    (stopped ??= (async () => {
      stopping.next();
      failed = await done.then(
        () => false,
        () => true,
      );
      await parts.stop();
    })());
  // A failure to stop (the output file cannot be finished) is reported to whoever awaits stop().
  if (!options.stayOpen) done.then(stop, stop).catch(() => undefined);
  const toolNames = tools?.registry.list().map((t) => t.name) ?? [];
  const about = {
    input: options.input ?? `microphone (${config.audio.recorder})`,
    output: player.destination,
    vad: vad.name,
    echoCancel: echo.canceller !== undefined,
    wake: wake.engine,
    api: config.service.api,
    model: config.chat.model,
    tools: toolNames.join(', ') || 'none',
    bargeIn: config.bargeIn.enabled && !options.fast,
  };
  // From the process's start (performance's time origin) to here: what start-up costs. A file
  // is open now; a microphone is once it has delivered audio (until then, mic.failed says why not).
  const listening = (): void =>
    logger.info('hark.listening', { ...about, tools: toolNames, startupMs: Math.round(performance.now()) });
  if (options.input) listening();
  else void firstAudio.then(listening);
  const modelsLoaded = Promise.all([
    vad instanceof LoadingVad ? vad.loaded : undefined,
    wake.engine === 'openwakeword' ? wake.detector.loaded : undefined,
  ]).then(() => {
    about.vad = vad.name;
    if (wake.engine === 'openwakeword' && wake.detector.failedToLoad) about.wake = 'phrase';
  });
  return {
    events,
    player,
    done,
    stop,
    stopSpeaking: () => stops.next(),
    listen: () => listens.next(),
    mute: (on) => muted.next(on),
    muted: muted.pipe(distinctUntilChanged()),
    isMuted: () => muted.value,
    lastAudioAt: () => lastAudioAt,
    about,
    modelsLoaded,
    synthesizer: ports.synthesizer,
    volume,
    timersSet: tools?.timersSet,
  };
}
