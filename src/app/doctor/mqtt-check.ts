import type { HarkConfig } from '../../config/schema.js';
import { homeDevice } from '../home/home.js';
import { brokerOf, probeBroker, type BrokerStatus } from '../home/mqtt-connection.js';
import { fail, ok, skip, type CheckResult } from './doctor-result.js';

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
