import { describe, expect, it } from 'vitest';
import { brokerOf } from '../../../src/app/home/mqtt-connection.js';
import { loadConfig } from '../../../src/config/load.js';
import { redact } from '../../../src/system/secrets.js';
import { bare, configFile as file, problemsOf } from '../../helpers/config-files.js';

describe('mqtt and hooks in the configuration', () => {
  it('MQTT is off by default; HARK_MQTT_URL turns it on, and the password comes from its ${NAME}, scrubbed from logs', () => {
    expect(loadConfig({ env: bare }).config.mqtt.url).toBeNull();
    const path = file(['mqtt:', '  username: hark', '  password: ${MQTT_PASSWORD}'].join('\n'));
    const env = { ...bare, HARK_MQTT_URL: 'mqtt://broker.local:1883', MQTT_PASSWORD: 'broker-secret-42' };
    const { config } = loadConfig({ configPath: path, env });
    expect(config.mqtt).toMatchObject({
      url: 'mqtt://broker.local:1883',
      username: 'hark',
      password: '${MQTT_PASSWORD}',
    });
    expect(brokerOf(config, env)).toEqual({
      url: 'mqtt://broker.local:1883',
      username: 'hark',
      password: 'broker-secret-42',
    });
    expect(redact('connect failed for broker-secret-42')).toBe('connect failed for ***');
    expect(() => brokerOf(config, bare)).toThrow('${MQTT_PASSWORD} is not set in the environment or as a credential');
  });

  it('refuses a password written in the file or in the URL, and a URL that is no broker', () => {
    const written = file(['mqtt:', '  url: mqtt://broker.local', '  password: hunter22'].join('\n'));
    expect(problemsOf(() => loadConfig({ configPath: written, env: bare }))).toEqual([
      expect.stringMatching(/mqtt\.password: a password is never written in a config file: write \$\{SOME_NAME\}/),
    ]);
    const inUrl = { ...bare, HARK_MQTT_URL: 'mqtt://hark:hunter22@broker.local:1883' };
    expect(problemsOf(() => loadConfig({ env: inUrl }))).toEqual([
      expect.stringMatching(/HARK_MQTT_URL \(mqtt\.url\): a password is never written in the URL/),
    ]);
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_MQTT_URL: 'http://broker.local' } }))).toEqual([
      expect.stringMatching(/HARK_MQTT_URL \(mqtt\.url\): .*an mqtt:\/\/ or mqtts:\/\/ URL/),
    ]);
  });

  it('refuses topics with wildcards, and takes hooks from the file or the environment', () => {
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_MQTT_BASE_TOPIC: 'hark/#' } }))).toEqual([
      expect.stringMatching(
        /HARK_MQTT_BASE_TOPIC \(mqtt\.baseTopic\): the base topic: levels split by "\/", without "\+", "#" or spaces/,
      ),
    ]);
    const { config } = loadConfig({
      env: { ...bare, HARK_HOOKS_THINKING: 'leds thinking', HARK_HOOKS_TIMEOUT_MS: '2000' },
    });
    expect(config.hooks).toMatchObject({ thinking: 'leds thinking', timeoutMs: 2000, wake: null });
  });
});
