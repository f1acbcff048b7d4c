import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { cleanEnv } from './cli.js';
import { RunningHark } from './daemon.js';
import { workDir } from './loop.js';
import { startMosquitto, TopicWatcher, type BrokerUser, type SeenMessage, type TestBroker } from './mosquitto.js';
import { FAST_TIMING } from './service.js';
import { UTTERANCE } from './speech.js';

/** A question or a command, 1.5 s of speech. */
export const clip = { path: UTTERANCE, fromMs: 300, toMs: 1800 };

export interface HomeRun {
  hark: RunningHark;
  /** What hark played, once it has exited. */
  output: string;
}

/**
 * For a test file of the `home` project: the stand-in (its speech faster than it plays, as from
 * the service: saying a notice takes as long as hearing it), and `hark run` processes gone after
 * each test, whatever happened.
 */
export function homeHarness() {
  let sim: SimServer | undefined;
  const started: RunningHark[] = [];
  beforeAll(async () => {
    sim = await startSim({ timing: { ...FAST_TIMING, ttsRealtimeFactor: 4 } });
  });
  afterAll(() => sim?.close());
  afterEach(async () => {
    await Promise.all(started.splice(0).map((hark) => hark.end()));
  });
  const theSim = (): SimServer => {
    if (!sim) throw new Error('the stand-in is started before the tests');
    return sim;
  };
  return {
    sim: theSim,
    /** `hark run` on `input` (read in real time) with MQTT on under `base`, writing what it plays to a WAV. */
    runHark(broker: TestBroker, base: string, input: string, env: Record<string, string> = {}, args: string[] = []) {
      const output = join(mkdtempSync(join(workDir, 'home-')), 'played.wav');
      const hark = new RunningHark(
        ['run', '--input', input, '-o', output, ...args],
        cleanEnv({
          HARK_SERVICE_BASE_URL: theSim().url,
          HARK_API_KEY: theSim().apiKey,
          HARK_MQTT_URL: broker.url,
          HARK_MQTT_BASE_TOPIC: base,
          HARK_WAKE_ENGINE: 'none',
          HARK_WEB_ENABLED: 'false',
          ...env,
        }),
      );
      started.push(hark);
      return { hark, output } satisfies HomeRun;
    },
  };
}

/** A broker for one test (anonymous, or behind `user`'s password), stopped after it; and a watcher on everything. */
export async function withBroker(
  user: BrokerUser | undefined,
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

/** A message on `topic` (with `payload`, if given). */
export const on = (topic: string, payload?: string) => (m: SeenMessage) =>
  m.topic === topic && (payload === undefined || m.payload === payload);
/** An event of `type` on the conversation event entity's topic. */
export const eventOf = (base: string, type: string) => (m: SeenMessage) =>
  m.topic === `${base}/event` && (JSON.parse(m.payload) as { event_type: string }).event_type === type;
export const json = (m: SeenMessage) => JSON.parse(m.payload) as Record<string, unknown>;

/** Sends `signal` and waits for hark to exit. */
export async function stopped(run: HomeRun, signal: NodeJS.Signals = 'SIGTERM') {
  run.hark.kill(signal);
  return run.hark.exited;
}
