/**
 * hark and Home Assistant's side of MQTT, against a real broker (Debian's mosquitto, started by
 * each test on a free loopback port with a configuration file of its own) and a real `hark run`
 * process listening to a file (in real time) against the stand-in. What Home Assistant does is
 * done with mosquitto_pub and watched with mosquitto_sub (Debian's mosquitto-clients), not with
 * the library hark uses.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkMqtt } from '../../src/app/doctor/mqtt-check.js';
import { defaultConfig } from '../../src/config/schema.js';
import { discoveryProblems } from '../helpers/home-assistant.js';
import { homeHarness, json, on, stopped, withBroker } from '../helpers/home-run.js';
import { composeWav, workDir } from '../helpers/loop.js';
import { TopicWatcher } from '../helpers/mosquitto.js';

const home = homeHarness();

describe('Home Assistant sees hark (MQTT discovery)', () => {
  it('behind a password: the device and its entities as Home Assistant requires them, the same ids after a restart, offline on a clean stop', async () => {
    const user = { username: 'hark', password: 'broker-pass-5813' };
    await withBroker(user, async (broker, watch) => {
      const config = join(mkdtempSync(join(workDir, 'home-')), 'config.yaml');
      writeFileSync(config, 'mqtt:\n  username: hark\n  password: ${MQTT_PASSWORD}\n  deviceName: Kitchen\n');
      const input = await composeWav([30_000]);
      const base = 'test/discovery';
      const env = { HARK_CONFIG: config, MQTT_PASSWORD: user.password };
      const configs = (from: number) =>
        watch.seen.slice(from).filter((m) => m.topic.startsWith('homeassistant/') && m.topic.endsWith('/config'));

      const first = home.runHark(broker, base, input, env);
      await watch.next(on(`${base}/availability`, 'online'));
      await watch.next(on(`${base}/state`, 'idle'), { since: 0 });
      await watch.next(on(`${base}/volume`), { since: 0 });
      const found = configs(0);
      expect(found.map((m) => m.topic).sort()).toEqual(
        [
          'button/test_discovery/listen',
          'button/test_discovery/stop',
          'event/test_discovery/conversation',
          'notify/test_discovery/announce',
          'number/test_discovery/volume',
          'sensor/test_discovery/heard',
          'sensor/test_discovery/next_timer',
          'sensor/test_discovery/reply',
          'sensor/test_discovery/state',
          'switch/test_discovery/mute',
          'text/test_discovery/ask',
        ].map((t) => `homeassistant/${t}/config`),
      );
      for (const message of found) {
        expect(message.retain, message.topic).toBe(false);
        expect(discoveryProblems(message.topic, json(message)), message.topic).toEqual([]);
        expect(json(message)).toMatchObject({
          availability_topic: `${base}/availability`,
          device: { identifiers: ['test_discovery'], name: 'Kitchen', model: 'hark voice assistant' },
        });
      }
      // Every state is there for Home Assistant, retained.
      expect(watch.latest(`${base}/mute`)).toBe('OFF');
      expect(watch.latest(`${base}/volume`)).toMatch(/^\d+$/);
      expect(JSON.parse(watch.latest(`${base}/timers`) ?? '{}')).toEqual({
        next: null,
        count: 0,
        label: null,
        kind: null,
      });
      expect(await stopped(first)).toMatchObject({ code: 0 });
      await watch.next(on(`${base}/availability`, 'offline'), { since: 0 });
      expect(JSON.stringify(first.hark.lines)).not.toContain(user.password);

      // Started again: the same entities, the same ids; and what was retained is there for a newcomer.
      const since = watch.seen.length;
      const second = home.runHark(broker, base, input, env);
      await watch.next(on(`${base}/availability`, 'online'));
      const again = configs(since);
      expect(again.map((m) => [m.topic, json(m).unique_id])).toEqual(found.map((m) => [m.topic, json(m).unique_id]));
      const newcomer = new TopicWatcher(broker, 'homeassistant/#');
      await newcomer.next((m) => m.retain && m.topic === 'homeassistant/sensor/test_discovery/state/config', {
        since: 0,
      });
      newcomer.close();
      await stopped(second);
    });
  });

  it('`hark doctor` says whether the broker takes hark: with the password, and without it', async () => {
    const user = { username: 'hark', password: 'broker-pass-2718' };
    await withBroker(user, async (broker) => {
      const config = defaultConfig();
      config.mqtt.url = broker.url;
      config.mqtt.username = 'hark';
      config.mqtt.password = '${HARK_TEST_MQTT_PASSWORD}';
      process.env.HARK_TEST_MQTT_PASSWORD = user.password;
      try {
        expect(await checkMqtt(config)).toEqual({ check: 'MQTT', status: 'ok', detail: `connected to ${broker.url}` });
        process.env.HARK_TEST_MQTT_PASSWORD = 'not-the-password';
        expect(await checkMqtt(config)).toMatchObject({
          status: 'fail',
          detail: `not connected to ${broker.url}: Connection refused: Not authorized`,
          fix: expect.stringContaining('mqtt.username') as unknown,
        });
      } finally {
        delete process.env.HARK_TEST_MQTT_PASSWORD;
      }
    });
  });
});
