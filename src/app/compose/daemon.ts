import { PLAYBACK_FIX, PlaybackError } from '../../audio/playback-error.js';
import type { LoadedConfig } from '../../config/load.js';
import type { HarkConfig } from '../../config/schema.js';
import type { Service } from '../../service/index.js';
import type { LogTail } from '../../system/log-tail.js';
import type { Logger } from '../../system/logger.js';
import { compileSettled } from '../../system/compile-settled.js';
import { Parts, type Part } from '../../system/parts.js';
import { SystemdNotifier } from '../../system/sd-notify.js';
import { wakePhrases } from '../../listen/wake/wake-settings.js';
import { configuredReference, describeVoice } from '../adapters/configured-voice.js';
import { startVoiceLoop, type VoiceLoop, type VoiceLoopOptions } from './voice-loop.js';
import { openHomePart } from '../home/home-part.js';
import { startWebPage } from '../page/web-page.js';

export interface DaemonContext {
  config: HarkConfig;
  loaded: LoadedConfig;
  service: Service;
  hasKey: boolean;
  logger: Logger;
  logTail?: LogTail | undefined;
  /** The stand-in started for --sim: the service hark talks to then. */
  sim?: { url: string } | undefined;
}

export interface DaemonOptions extends Omit<VoiceLoopOptions, 'reference' | 'metering' | 'stayOpen'> {
  /**
   * `--web`: serve the status page even for an input file, and keep it up after the input ends,
   * until SIGINT or SIGTERM. Without it the page is served from the microphone when `web.enabled`.
   */
  web?: boolean | undefined;
}

/**
 * hark as a daemon: the status page, the voice loop, the home following it, and systemd told
 * when it is listening and what it is doing, started in that order; and stopped in reverse when
 * SIGINT/SIGTERM comes or the input ends (the turn cancelled, the player and the models closed,
 * then the page). Resolves when the input ends (with `--web`, when a signal comes) or a signal
 * stopped it.
 */
export async function runDaemon(context: DaemonContext, options: DaemonOptions): Promise<void> {
  const { config, service, logger } = context;
  // A connection for the first turn. undici parses HTTP in WebAssembly, and V8 compiles the
  // parser again with its optimising compiler after the first response, holding about 25 MB for
  // a moment: now, and over before the models load, rather than at the first word heard or on
  // top of them (what hark's peak memory was made of).
  const parserCompiled = compileSettled(service.transport.warm(1));
  // MQTT's password is read now, while the credentials are there.
  const home = await openHomePart(config, logger, options.tools?.stateDir);
  // The key and the page's token are in memory now; no child process (recorder, player, ffmpeg)
  // inherits them. The credentials stay reachable to fill MCP servers' ${NAME}s.
  const credentials = process.env.CREDENTIALS_DIRECTORY;
  delete process.env.HARK_API_KEY;
  delete process.env.HARK_WEB_TOKEN;
  delete process.env.CREDENTIALS_DIRECTORY;
  const systemd = new SystemdNotifier(logger);
  const clone = await configuredReference(config, logger);
  const serve = options.web === true || (config.web.enabled && !options.input);
  const voice = describeVoice(config, clone);
  const parts = new Parts(logger);
  let loop: VoiceLoop | undefined;
  let stopReason: NodeJS.Signals | 'input ended' = 'input ended';
  let signalled: () => void = () => undefined;
  const signal = new Promise<void>((resolve) => (signalled = resolve));
  // From before the loop starts: a signal while it starts stops it as soon as it has.
  const stop = (name: NodeJS.Signals): void => {
    stopReason = name;
    logger.info('hark.stopping', { signal: name });
    systemd.stopping(name);
    signalled();
    // A failure to stop is reported where the stop is awaited, below.
    loop?.stop().catch(() => undefined);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // What a file run heard: turns, and speech left unanswered for want of the wake word; and
  // what it said: turns the user heard, and the last that could not be played.
  let turns = 0;
  let unheard = 0;
  let heardTurns = 0;
  let unplayed: PlaybackError | undefined;
  await parserCompiled;
  try {
    const page = serve
      ? await parts.start('page', () => startWebPage(config, { ...context, voice }, options.web === true))
      : undefined;
    const started = await parts.start('voice loop', () =>
      startVoiceLoop(config, service, logger, {
        ...options,
        tools: { ...options.tools, credentials },
        reference: clone?.reference,
        metering: page?.watching,
        stayOpen: options.web === true && page !== undefined,
        notices: home.notices,
      }),
    );
    loop = started;
    const following = parts.add('home', home.start(started));
    page?.attach(started, following.status);
    parts.add('systemd', followInSystemd(systemd, started));
    started.events.subscribe({
      next: (event) => {
        if (event.type === 'no-wake-word' && !event.tentative) unheard++;
        if (event.type !== 'turn') return;
        turns++;
        if (event.turn.failed instanceof PlaybackError) unplayed = event.turn.failed;
        else if (event.turn.audioMs.played > 0) heardTurns++;
      },
      // A failure ends loop.done, which reports it.
      error: () => undefined,
    });
    if (stopReason === 'input ended') systemd.ready('listening');
    else void started.stop().catch(() => undefined);
    await started.done;
    if (options.input && stopReason === 'input ended') page?.inputEnded();
    if (options.input && turns === 0 && unheard > 0) warnUnheard(logger, config, unheard);
    if (options.web && page && stopReason === 'input ended') {
      logger.info('web.staying', { urls: page.urls, until: 'Ctrl-C (SIGINT) or SIGTERM' });
      await signal;
    }
    // A file run whose every answer was lost failed, however well the rest went.
    if (options.input && unplayed && heardTurns === 0) {
      throw new Error(`nothing hark said could be played (${unplayed.message}): ${PLAYBACK_FIX}`);
    }
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await parts.stop();
    if (loop) logger.info('hark.stopped', { reason: stopReason });
  }
}

/** systemd told what the loop does (its STATUS line), until stopped: no more watchdog pings then. */
function followInSystemd(systemd: SystemdNotifier, loop: VoiceLoop): Part {
  const status = loop.events.subscribe({
    next: (event) => event.type === 'state' && systemd.status(event.state),
    error: () => undefined,
  });
  return {
    stop: () => {
      status.unsubscribe();
      systemd.stopWatchdog();
      return Promise.resolve();
    },
  };
}

/** A file run answered nothing: its speech never began with the wake word. */
function warnUnheard(logger: Logger, config: HarkConfig, utterances: number): void {
  const phrases = wakePhrases(config).map((phrase) => `"${phrase}"`);
  logger.warn('listen.unanswered', {
    utterances,
    reason: `a turn starts with the wake word (${phrases.join(' or ')}), and no speech in the input began with it`,
    fix: 'begin the recording with the wake word, or answer everything with HARK_WAKE_ENGINE=none (wake.engine: none)',
  });
}
