import { Subscription, shareReplay, type Observable } from 'rxjs';
import type { HarkConfig } from '../../config/schema.js';
import { Hooks } from '../../home/hooks.js';
import type { Notice } from '../../pipeline/ports.js';
import type { Logger } from '../../system/logger.js';
import { Parts, type Part } from '../../system/parts.js';
import { openHome, type Home } from './home.js';
import { moments } from './moments.js';
import { brokerOf, type BrokerStatus } from './mqtt-connection.js';
import type { VoiceLoop } from '../compose/voice-loop.js';

/**
 * What follows the voice loop for the home: the `hooks:` commands (the board's lights) and
 * Home Assistant over MQTT. Opened before the loop (the announcements kept from before go to
 * it), started once the loop has, stopped before it stops. Nothing here is waited for by
 * listening or a reply: it reads the loop's event stream.
 */
export interface HomePart {
  /** What Home Assistant asks hark to say; undefined when MQTT is off. */
  notices: Observable<Notice> | undefined;
  /** Runs hooks and connects to the broker (in the background). */
  start(loop: VoiceLoop): HomeFollowing;
}

/** The home following the loop: stopping it stops the hook under way, says `offline` and leaves the broker. */
export interface HomeFollowing extends Part {
  /** The broker's status, when MQTT is on. */
  status: Observable<BrokerStatus> | undefined;
}

/**
 * Reads MQTT's password now (from the environment or a systemd credential, before the daemon
 * clears them); one that is missing is said in the log, and hark runs on without MQTT.
 */
export async function openHomePart(config: HarkConfig, logger: Logger, stateDir?: string): Promise<HomePart> {
  let home: Home | undefined;
  try {
    const broker = brokerOf(config);
    if (broker) home = await openHome(config, { broker, logger, stateDir });
  } catch (error) {
    logger.error('mqtt.unavailable', {
      error: error as Error,
      fix: 'give the variable named in mqtt.password in the environment, or as a systemd credential of that name',
      voiceLoop: 'runs on without MQTT',
    });
  }
  const hooks = new Hooks(config.hooks, logger);
  return {
    notices: home?.notices,
    start(loop) {
      const following = new Subscription();
      // The latest moment for whoever comes later: Home Assistant subscribes once MQTT.js has loaded.
      const moment = moments(loop.events, loop.muted, config.listen.followUpMs).pipe(
        shareReplay({ bufferSize: 1, refCount: true }),
      );
      if (hooks.any) following.add(moment.subscribe(({ moment: name, state }) => hooks.run(name, state)));
      home?.attach(loop, moment).catch((error: unknown) => logger.error('mqtt.unavailable', { error: error as Error }));
      // Stopped in reverse of how it started: Home Assistant, then the hooks.
      const parts = new Parts(logger);
      parts.add('hooks', { stop: () => hooks.close() });
      parts.add('mqtt', home);
      return {
        status: home?.status,
        stop: async () => {
          following.unsubscribe();
          await parts.stop();
        },
      };
    },
  };
}
