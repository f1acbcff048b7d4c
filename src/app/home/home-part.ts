import { Subscription, shareReplay, type Observable } from 'rxjs';
import type { HarkConfig } from '../../config/schema.js';
import { Hooks } from '../../home/hooks.js';
import type { Notice } from '../../pipeline/ports.js';
import type { Logger } from '../../system/logger.js';
import { fail, ok, skip, type CheckResult } from '../doctor/doctor-result.js';
import { homeDevice, openHome, type Home } from './home.js';
import { moments } from './moments.js';
import { brokerOf, probeBroker, type BrokerStatus } from './mqtt-connection.js';
import type { VoiceLoop } from '../compose/voice-loop.js';

/**
 * What follows the voice loop for the home: the `hooks:` commands (the board's lights) and
 * Home Assistant over MQTT. Opened before the loop (the announcements kept from before go to
 * it), attached once it has started, closed before it stops. Nothing here is waited for by
 * listening or a reply: it reads the loop's event stream.
 */
export interface HomePart {
  /** What Home Assistant asks hark to say; undefined when MQTT is off. */
  notices: Observable<Notice> | undefined;
  /** Runs hooks and connects to the broker (in the background); the broker's status, when MQTT is on. */
  attach(loop: VoiceLoop): Observable<BrokerStatus> | undefined;
  /** The hook under way stopped, `offline` said, the broker left. */
  close(): Promise<void>;
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
  const following = new Subscription();
  return {
    notices: home?.notices,
    attach(loop) {
      // The latest moment for whoever comes later: Home Assistant subscribes once MQTT.js has loaded.
      const moment = moments(loop.events, loop.muted, config.listen.followUpMs).pipe(
        shareReplay({ bufferSize: 1, refCount: true }),
      );
      if (hooks.any) following.add(moment.subscribe(({ moment: name, state }) => hooks.run(name, state)));
      home?.attach(loop, moment).catch((error: unknown) => logger.error('mqtt.unavailable', { error: error as Error }));
      return home?.status;
    },
    async close() {
      following.unsubscribe();
      await Promise.all([hooks.close(), home?.close()]);
    },
  };
}

/** The broker's status as a row of `hark doctor`. */
export function mqttCheck(status: BrokerStatus): CheckResult {
  if (status.connected) return ok('MQTT', `connected to ${status.url}`);
  const why = status.error ? `: ${status.error}` : ' yet';
  return fail('MQTT', `not connected to ${status.url}${why}`, status.fix ?? 'see the log (mqtt.disconnected)');
}

/**
 * `hark doctor` (not the daemon's page): connects once, with the configured login, under a
 * client id of its own (the daemon's session is left alone), and says how it went.
 */
export async function checkMqtt(config: HarkConfig): Promise<CheckResult> {
  if (config.mqtt.url === null) return skip('MQTT', 'mqtt.url is not set (Home Assistant through MQTT is off)');
  let broker;
  try {
    broker = brokerOf(config);
  } catch (error) {
    return fail(
      'MQTT',
      (error as Error).message,
      'give the variable named in mqtt.password, or a systemd credential of that name',
    );
  }
  if (!broker) return skip('MQTT', 'off');
  return mqttCheck(await probeBroker(broker, `${homeDevice(config).nodeId}_doctor`));
}
