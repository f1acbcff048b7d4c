import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';

/** A user the broker knows, for the broker that asks for a password. */
export interface BrokerUser {
  username: string;
  password: string;
}

/** Debian's Mosquitto on a free loopback port, with a configuration file of the test's own. */
export interface TestBroker {
  url: string;
  port: number;
  user: BrokerUser | undefined;
  /** Stops the broker (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port, as it was. */
  start(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Starts a broker: anonymous, or (given a user) refusing anyone without that user's password. */
export async function startMosquitto(user?: BrokerUser): Promise<TestBroker> {
  const dir = mkdtempSync(join(tmpdir(), 'hark-mosquitto-'));
  const port = await freePort();
  const lines = [
    `listener ${port} 127.0.0.1`,
    // Run as root (CI), mosquitto would switch to its own user, who cannot read this directory.
    `user ${userInfo().username}`,
    'persistence false',
    'log_dest stderr',
    'log_type error',
    'log_type warning',
    'log_type notice',
    // "mosquitto version ... running": its listener is open.
    'log_type information',
  ];
  if (user) {
    const passwords = join(dir, 'passwords');
    const made = spawnSync('mosquitto_passwd', ['-b', '-c', passwords, user.username, user.password], {
      encoding: 'utf8',
    });
    if (made.status !== 0) throw new Error(`mosquitto_passwd failed: ${made.stderr}`);
    lines.push('allow_anonymous false', `password_file ${passwords}`);
  } else {
    lines.push('allow_anonymous true');
  }
  const config = join(dir, 'mosquitto.conf');
  writeFileSync(config, `${lines.join('\n')}\n`);
  let child: ChildProcess | undefined;
  const start = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const started = spawn('mosquitto', ['-c', config], { stdio: ['ignore', 'ignore', 'pipe'] });
      child = started;
      let said = '';
      started.once('error', reject);
      started.once('exit', (code) => reject(new Error(`mosquitto exited (${String(code)}): ${said}`)));
      started.stderr?.on('data', (d: Buffer) => {
        said = (said + d.toString()).slice(-2000);
        if (/ running\b/.test(said)) resolve();
      });
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      const running = child;
      child = undefined;
      if (!running || running.exitCode !== null) return resolve();
      running.removeAllListeners('exit');
      running.once('exit', () => resolve());
      running.kill('SIGTERM');
    });
  await start();
  return { url: `mqtt://127.0.0.1:${port}`, port, user, stop, start };
}

/** A message the watcher saw: its topic, payload, and whether it came as retained. */
export interface SeenMessage {
  topic: string;
  payload: string;
  retain: boolean;
}

/**
 * `mosquitto_sub` (Debian's mosquitto-clients) on every topic: an observer independent of the
 * MQTT library hark uses. Retained messages come first, marked.
 */
export class TopicWatcher {
  readonly seen: SeenMessage[] = [];
  private readonly child: ChildProcess;
  private readonly waiting: (() => void)[] = [];

  constructor(broker: TestBroker, topic = '#') {
    const login = broker.user ? ['-u', broker.user.username, '-P', broker.user.password] : [];
    this.child = spawn(
      'mosquitto_sub',
      ['-h', '127.0.0.1', '-p', String(broker.port), ...login, '-t', topic, '-F', '%j', '-q', '1'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let rest = '';
    this.child.stdout?.on('data', (d: Buffer) => {
      rest += d.toString();
      let at;
      while ((at = rest.indexOf('\n')) >= 0) {
        const line = rest.slice(0, at);
        rest = rest.slice(at + 1);
        const message = JSON.parse(line) as { topic: string; payload: string; retain: number };
        this.seen.push({ topic: message.topic, payload: message.payload, retain: message.retain === 1 });
        for (const tell of this.waiting.splice(0)) tell();
      }
    });
  }

  /** The first message (from now on, or among those seen when `since` is 0) that matches; fails after `timeoutMs`. */
  async next(
    matches: (message: SeenMessage) => boolean,
    { since = this.seen.length, timeoutMs = 20_000 } = {},
  ): Promise<SeenMessage> {
    const deadline = Date.now() + timeoutMs;
    for (let from = since; ;) {
      const found = this.seen.slice(from).find(matches);
      if (found) return found;
      from = this.seen.length;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no such message within ${timeoutMs} ms; seen: ${JSON.stringify(this.seen.slice(-8))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The latest payload on `topic` so far. */
  latest(topic: string): string | undefined {
    return this.seen.filter((m) => m.topic === topic).at(-1)?.payload;
  }

  close(): void {
    this.child.kill('SIGTERM');
  }
}

/** Publishes once with `mosquitto_pub` (QoS 1, as Home Assistant's entities here publish). */
export function publish(broker: TestBroker, topic: string, payload: string): void {
  const login = broker.user ? ['-u', broker.user.username, '-P', broker.user.password] : [];
  const sent = spawnSync(
    'mosquitto_pub',
    ['-h', '127.0.0.1', '-p', String(broker.port), ...login, '-q', '1', '-t', topic, '-m', payload],
    { encoding: 'utf8', timeout: 10_000 },
  );
  if (sent.status !== 0) throw new Error(`mosquitto_pub failed: ${sent.stderr}`);
}
