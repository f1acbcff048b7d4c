/**
 * hark and Home Assistant's side of MQTT, against a real broker (Debian's mosquitto, started by
 * each test on a free loopback port with a configuration file of its own) and a real `hark run`
 * process listening to a file (in real time) against the stand-in. What Home Assistant does is
 * done with mosquitto_pub and watched with mosquitto_sub (Debian's mosquitto-clients), not with
 * the library hark uses.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkMqtt } from '../../src/app/home-part.js';
import { readPcm16Mono } from '../../src/audio/wav-header.js';
import { defaultConfig } from '../../src/config/schema.js';
import { ASKED_FOR_THE_HOME } from '../../src/dialog/conversation.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { cleanEnv } from '../helpers/cli.js';
import { RunningHark } from '../helpers/daemon.js';
import { discoveryProblems } from '../helpers/home-assistant.js';
import { composeWav, workDir } from '../helpers/loop.js';
import { publish, startMosquitto, TopicWatcher, type SeenMessage, type TestBroker } from '../helpers/mosquitto.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';

let sim: SimServer;
beforeAll(async () => {
  // Speech comes faster than it plays, as from the service: saying a notice takes as long as hearing it.
  sim = await startSim({ timing: { ...FAST_TIMING, ttsRealtimeFactor: 4 } });
});
afterAll(() => sim.close());
/** Every hark a test started: gone after it, whatever happened. */
const started: RunningHark[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((hark) => hark.end()));
});

const clip = { path: UTTERANCE, fromMs: 300, toMs: 1800 };

interface Run {
  hark: RunningHark;
  /** What hark played, once it has exited. */
  output: string;
}

/** `hark run` on `input` (read in real time) with MQTT on, writing what it plays to a WAV. */
function runHark(
  broker: TestBroker,
  base: string,
  input: string,
  env: Record<string, string> = {},
  args: string[] = [],
): Run {
  const output = join(mkdtempSync(join(workDir, 'home-')), 'played.wav');
  const hark = new RunningHark(
    ['run', '--input', input, '-o', output, ...args],
    cleanEnv({
      HARK_SERVICE_BASE_URL: sim.url,
      HARK_API_KEY: sim.apiKey,
      HARK_MQTT_URL: broker.url,
      HARK_MQTT_BASE_TOPIC: base,
      HARK_WAKE_ENGINE: 'none',
      HARK_WEB_ENABLED: 'false',
      ...env,
    }),
  );
  started.push(hark);
  return { hark, output };
}

/** A broker for one test, stopped after it, whatever happened; and a watcher on everything. */
async function withBroker(
  user: { username: string; password: string } | undefined,
  test: (broker: TestBroker, watch: TopicWatcher) => Promise<void>,
): Promise<void> {
  const broker = await startMosquitto(user);
  const watch = new TopicWatcher(broker);
  try {
    await test(broker, watch);
  } finally {
    watch.close();
    await broker.stop();
  }
}

const on = (topic: string, payload?: string) => (m: SeenMessage) =>
  m.topic === topic && (payload === undefined || m.payload === payload);
const eventOf = (base: string, type: string) => (m: SeenMessage) =>
  m.topic === `${base}/event` && (JSON.parse(m.payload) as { event_type: string }).event_type === type;
const json = (m: SeenMessage) => JSON.parse(m.payload) as Record<string, unknown>;

async function stopped(run: Run, signal: NodeJS.Signals = 'SIGTERM') {
  run.hark.kill(signal);
  return run.hark.exited;
}

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

      const first = runHark(broker, base, input, env);
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
      const second = runHark(broker, base, input, env);
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

describe('Home Assistant controls hark and speaks through it', () => {
  it("an announcement is said: the announce earcon, then the stand-in's speech, played; the page and doctor say MQTT is connected", async () => {
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/announce';
      const input = await composeWav([12_000]);
      const run = runHark(broker, base, input, { HARK_WEB_ENABLED: 'true', HARK_WEB_LISTEN: '127.0.0.1:0' }, ['--web']);
      const url = ((await run.hark.line('web.listening')).urls as string[])[0] as string;
      await watch.next(on(`${base}/availability`, 'online'));
      const text = 'The washing machine is done. It has been a long cycle.';
      publish(broker, `${base}/announce`, text);
      const said = json(await watch.next(eventOf(base, 'announcement')));
      expect(said).toMatchObject({ event_type: 'announcement', kind: 'announce', text, spoken: true });
      expect(watch.seen.filter((m) => m.topic === `${base}/state`).map((m) => m.payload)).toEqual([
        'idle',
        'speaking',
        'idle',
      ]);
      const spoken = await run.hark.line('notice.spoken');
      expect(sim.requestsTo('speech').map((r) => (r.body as { input: string }).input)).toContain(text);
      const state = (await (await fetch(`${url}api/state`)).json()) as { about: Record<string, unknown> };
      expect(state.about.mqtt).toBe(`connected to ${broker.url}`);
      const doctor = (await (await fetch(`${url}api/doctor`)).json()) as { checks: { check: string }[] };
      expect(doctor.checks.find((c) => c.check === 'MQTT')).toEqual({
        check: 'MQTT',
        status: 'ok',
        detail: `connected to ${broker.url}`,
      });
      await stopped(run, 'SIGINT');
      // The stand-in's speech reached the player: as much sound as was said, in the WAV it wrote.
      const { pcm, sampleRateHz } = readPcm16Mono(readFileSync(run.output));
      const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
      const loud = samples.filter((s) => Math.abs(s) > 300).length;
      expect(spoken.playedMs).toBeGreaterThan(1000);
      expect((loud / sampleRateHz) * 1000).toBeGreaterThan((spoken.playedMs as number) * 0.3);
    });
  });

  it('a question: hark asks it, the answer needs no wake word, is a turn, and is published for an automation', async () => {
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/ask';
      sim.script.transcript('Yes, lock it.').reply('I will lock the back door.');
      // The answer comes 12 s in: without the question, it would need "hey jarvis" before it.
      const input = await composeWav([12_000, clip, 4000]);
      const run = runHark(broker, base, input, { HARK_WAKE_ENGINE: 'phrase', HARK_LISTEN_FOLLOW_UP_MS: '20000' });
      await watch.next(on(`${base}/availability`, 'online'));
      const question = 'The back door is open. Shall I lock it?';
      publish(broker, `${base}/ask`, question);
      const answer = json(await watch.next(eventOf(base, 'answer'), { timeoutMs: 30_000 }));
      expect(answer).toMatchObject({ question, answer: 'Yes, lock it.', answered: true });
      const turn = json(await watch.next(eventOf(base, 'turn'), { since: 0 }));
      expect(turn).toMatchObject({
        transcript: 'Yes, lock it.',
        reply: 'I will lock the back door.',
        interrupted: false,
      });
      expect(watch.latest(`${base}/heard`)).toBe('Yes, lock it.');
      expect(watch.latest(`${base}/reply`)).toBe('I will lock the back door.');
      const chat = sim.requestsTo('chat').at(-1)?.body as {
        messages: { role: string; content: string }[];
      };
      expect(chat.messages.slice(-3)).toEqual([
        { role: 'user', content: ASKED_FOR_THE_HOME },
        { role: 'assistant', content: question },
        { role: 'user', content: 'Yes, lock it.' },
      ]);
      await run.hark.exited;
    });
  });

  it('the listen button: hark listens at once, and what is said next needs no wake word; no secret reaches the broker', async () => {
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/listen';
      // Heard words that quote the API key (read out from a screen): published scrubbed, as logged.
      sim.script.transcript(`Turn on the kitchen light, key ${sim.apiKey}.`).reply('Done.');
      const input = await composeWav([10_000, clip, 3000]);
      const run = runHark(broker, base, input, { HARK_WAKE_ENGINE: 'phrase', HARK_LISTEN_FOLLOW_UP_MS: '20000' });
      await watch.next(on(`${base}/availability`, 'online'));
      publish(broker, `${base}/listen`, 'PRESS');
      await watch.next(on(`${base}/state`, 'listening'));
      const turn = json(await watch.next(eventOf(base, 'turn'), { timeoutMs: 30_000 }));
      expect(turn).toMatchObject({ transcript: 'Turn on the kitchen light, key ***.', reply: 'Done.' });
      expect(watch.latest(`${base}/heard`)).toBe('Turn on the kitchen light, key ***.');
      expect(await run.hark.line('wake')).toMatchObject({ phrase: '(listen button)' });
      await run.hark.exited;
      expect(JSON.stringify(watch.seen)).not.toContain(sim.apiKey);
    });
  });

  it('mute: what is said is not heard, and Home Assistant sees it muted; stop: an announcement is cut at once', async () => {
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/controls';
      const transcriptionsBefore = sim.requestsTo('transcription').length;
      const input = await composeWav([10_000, clip, 3000]);
      const run = runHark(broker, base, input);
      await watch.next(on(`${base}/availability`, 'online'));
      publish(broker, `${base}/mute/set`, 'ON');
      await watch.next(on(`${base}/mute`, 'ON'));
      await watch.next(on(`${base}/state`, 'muted'), { since: 0 });
      publish(broker, `${base}/announce`, 'A long announcement. '.repeat(12));
      await watch.next(on(`${base}/state`, 'speaking'));
      publish(broker, `${base}/stop`, 'PRESS');
      const cut = json(await watch.next(eventOf(base, 'announcement')));
      expect(cut).toMatchObject({ spoken: false, why: 'stopped (control)' });
      await run.hark.exited;
      expect(run.hark.lines.find((l) => l.event === 'notice.stopped')).toMatchObject({ by: 'control' });
      // The utterance at 10 s was silence to hark: nothing was transcribed, no turn.
      expect(sim.requestsTo('transcription')).toHaveLength(transcriptionsBefore);
      expect(run.hark.count('turn')).toBe(0);
    });
  });

  it('hark killed (SIGKILL): the broker says it is offline, by the last will', async () => {
    await withBroker(undefined, async (broker, watch) => {
      const base = 'test/will';
      const run = runHark(broker, base, await composeWav([30_000]));
      await watch.next(on(`${base}/availability`, 'online'));
      const since = watch.seen.length;
      expect(await stopped(run, 'SIGKILL')).toMatchObject({ signal: 'SIGKILL' });
      await watch.next(on(`${base}/availability`, 'offline'), { since });
      const newcomer = new TopicWatcher(broker, `${base}/availability`);
      expect(await newcomer.next(() => true, { since: 0 })).toMatchObject({ payload: 'offline', retain: true });
      newcomer.close();
    });
  });

  it('a broker that goes away and comes back costs no turn and no announcement', async () => {
    const broker = await startMosquitto();
    let watch = new TopicWatcher(broker);
    try {
      const base = 'test/outage';
      sim.script.transcript('What time is it?').reply('It is noon.');
      const input = await composeWav([6000, clip, 18_000]);
      const run = runHark(broker, base, input);
      await watch.next(on(`${base}/availability`, 'online'));
      publish(broker, `${base}/announce`, 'The first announcement, said while the broker goes away.');
      await run.hark.line('notice.started');
      watch.close();
      await broker.stop();
      const away = await run.hark.line('mqtt.disconnected');
      // The turn, and the announcement, go on without the broker.
      const turn = await run.hark.line('turn');
      expect(run.hark.lines.indexOf(turn)).toBeGreaterThan(run.hark.lines.indexOf(away));
      expect(turn).toMatchObject({ transcript: 'What time is it?', reply: 'It is noon.', interrupted: false });
      await run.hark.line('notice.spoken', (l) => l.id === 'n1');
      await broker.start();
      watch = new TopicWatcher(broker);
      // Retained while it was away: it is back.
      await watch.next(on(`${base}/availability`, 'online'), { since: 0, timeoutMs: 30_000 });
      await run.hark.line('mqtt.connected', () => run.hark.count('mqtt.connected') === 2);
      publish(broker, `${base}/announce`, 'The second announcement.');
      const second = (m: SeenMessage) =>
        eventOf(base, 'announcement')(m) && json(m).text === 'The second announcement.';
      expect(json(await watch.next(second, { since: 0 }))).toMatchObject({ id: 'n2', spoken: true });
      await run.hark.exited;
      expect(run.hark.count('turn')).toBe(1);
      expect(run.hark.lines.filter((l) => l.event === 'notice.spoken').map((l) => l.id)).toEqual(['n1', 'n2']);
    } finally {
      watch.close();
      await broker.stop();
    }
  });
});
