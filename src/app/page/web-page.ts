import { Subscription, type Observable } from 'rxjs';
import { ConfigError } from '../../config/config-error.js';
import type { HarkConfig } from '../../config/schema.js';
import { packageVersion } from '../../system/package-paths.js';
import type { Part } from '../../system/parts.js';
import { portHolder } from '../../system/port-holder.js';
import { exposureProblem } from '../../web/access.js';
import { LiveFeed } from '../../web/live.js';
import { PageState } from '../../web/page-state.js';
import { startPageServer } from '../../web/server.js';
import { INPUT_ENDED } from '../../web/page-json.js';
import { mqttCheck } from '../doctor/mqtt-check.js';
import type { BrokerStatus } from '../home/mqtt-connection.js';
import { pageControls, type ControlsSetup } from './page-controls.js';
import { pageEvents } from './page-events.js';
import type { VoiceLoop } from '../compose/voice-loop.js';

export interface WebPage extends Part {
  /** Whether a browser looks at the page's live stream: the loop makes meters only then. */
  watching: Observable<boolean>;
  urls: string[];
  /** Shows the running loop: its events, its mute, and its controls; and whether MQTT is connected, when it is on. */
  attach(loop: VoiceLoop, mqtt?: Observable<BrokerStatus>): void;
  /** A file run's input has ended: the page says so, instead of that hark listens. */
  inputEnded(): void;
}

/**
 * The status page: refuses to start (a ConfigError: exit 2) on an address other machines reach
 * without a token. When it cannot listen (the port is taken): asked for (`required`: --web), it
 * fails, saying why; served because web.enabled, it says so in the log and returns undefined,
 * and hark runs on without it. It reads the voice loop's event stream, the one the log is
 * written from.
 */
export async function startWebPage(
  config: HarkConfig,
  setup: ControlsSetup,
  required = false,
): Promise<WebPage | undefined> {
  const { loaded, logger } = setup;
  const problem = webPageProblem(config, loaded.webToken);
  if (problem) throw new ConfigError([problem]);
  const state = new PageState({
    version: packageVersion(),
    listen: config.web.listen,
    vadThreshold: config.vad.startThreshold,
    ...(config.wake.engine === 'openwakeword' ? { wakeThreshold: config.wake.threshold } : {}),
  });
  const feed = new LiveFeed(state);
  let loop: VoiceLoop | undefined;
  let mqtt: BrokerStatus | undefined;
  const controls = pageControls(
    setup,
    () => loop,
    { state: () => state.snapshot().state, push: (e) => feed.push(e) },
    () => mqtt && mqttCheck(mqtt),
  );
  let server;
  try {
    server = await startPageServer({ listen: config.web.listen, token: loaded.webToken, feed, controls, logger });
  } catch (error) {
    const why = whyNotListening(error as NodeJS.ErrnoException, config.web.listen);
    const fix = 'set web.listen to a free address (HARK_WEB_LISTEN=127.0.0.1:8791)';
    if (required) throw new Error(`--web: the status page cannot listen: ${why}; ${fix}`);
    logger.error('web.unavailable', {
      listen: config.web.listen,
      error: why,
      fix: `${fix}, or web.enabled: false`,
      voiceLoop: 'runs on without the page',
    });
    return undefined;
  }
  logger.info('web.listening', { urls: server.urls, token: loaded.webToken !== undefined });
  const subscriptions = new Subscription();
  return {
    watching: feed.watching,
    urls: server.urls,
    attach(started, broker) {
      loop = started;
      if (broker)
        subscriptions.add(
          broker.subscribe((now) => {
            mqtt = now;
            feed.push({ type: 'about', about: { mqtt: mqttCheck(now).detail } });
          }),
        );
      state.describe(started.about);
      // A model that fails to load while hark listens changes what it listens with.
      void started.modelsLoaded.then(() => state.describe(started.about));
      // The loop says what it does only when that changes: it starts out listening.
      feed.push({ type: 'state', state: 'listening' });
      const toPage = pageEvents();
      let failures = 0;
      subscriptions.add(
        started.events.subscribe({
          next: (event) => {
            try {
              const shown = toPage(event);
              if (shown) feed.push(shown);
            } catch (error) {
              // The page must never take the voice loop down with it.
              if (failures++ === 0)
                logger.warn('web.event_failed', { type: event.type, error: (error as Error).message });
            }
          },
          error: () => undefined,
        }),
      );
      subscriptions.add(started.muted.subscribe((muted) => feed.push({ type: 'muted', muted })));
    },
    inputEnded() {
      feed.push({ type: 'state', state: INPUT_ENDED });
    },
    async stop() {
      subscriptions.unsubscribe();
      await server.close();
    },
  };
}

function whyNotListening(error: NodeJS.ErrnoException, listen: string): string {
  const port = listen.slice(listen.lastIndexOf(':') + 1);
  if (error.code === 'EADDRINUSE') {
    return `port ${port} is taken by ${portHolder(Number(port)) ?? 'another program'} (${listen})`;
  }
  if (error.code === 'EADDRNOTAVAIL') return `${listen} is not an address of this machine`;
  if (error.code === 'EACCES') return `${listen}: ports below 1024 need privileges hark does not have`;
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return `${listen}: no such host name`;
  return error.message;
}

/** Why the status page, as configured, would refuse to start (`run` stops with exit 2 then), if it would. */
export function webPageProblem(config: HarkConfig, webToken: string | undefined): string | undefined {
  return exposureProblem(config.web.listen, webToken);
}
