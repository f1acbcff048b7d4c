import type { IClientOptions, IPublishPacket, MqttClient } from 'mqtt';
import type { HarkConfig } from '../../config/schema.js';
import { fillPlaceholders } from '../../config/secret-values.js';
import type { Logger } from '../../system/logger.js';
import { redact } from '../../system/secrets.js';

/** A broker that cannot be reached is tried again after 1 s, 2 s, 4 s, ... at most this long apart. */
const MAX_BACKOFF_MS = 60_000;
const FIRST_BACKOFF_MS = 1000;

/** Where the broker is and who hark is to it; the password filled in (never from the file itself). */
export interface Broker {
  url: string;
  username: string | undefined;
  password: string | undefined;
}

/**
 * The broker of the configuration, its password taken from the `${NAME}` written for it (the
 * environment, else the systemd credential NAME; registered as a secret). Throws, naming what
 * is missing, when it cannot be; undefined when MQTT is off.
 */
export function brokerOf(config: HarkConfig, env: NodeJS.ProcessEnv = process.env): Broker | undefined {
  const { url, username, password } = config.mqtt;
  if (url === null) return undefined;
  return {
    url,
    username: username ?? undefined,
    password: password === null ? undefined : fillPlaceholders(password, env),
  };
}

export type BrokerStatus =
  | { connected: true; url: string }
  | { connected: false; url: string; error: string | undefined; fix: string | undefined };

export interface ConnectionOptions {
  broker: Broker;
  clientId: string;
  /** What the broker publishes (retained) when hark goes away without a word: its last will. */
  will: { topic: string; payload: string };
  logger: Logger;
  /** Each time the connection is made: subscribe, and publish what must be there. */
  connected(client: MqttClient): void;
  /** A message on a subscribed topic. The broker hears it was received (QoS 1) once this settles. */
  received(topic: string, payload: string, retained: boolean): Promise<void> | void;
  /** Told whenever the connection is made or lost. */
  changed?(status: BrokerStatus): void;
}

/**
 * A connection to the broker that keeps itself up: made in the background (nothing waits for
 * it), made again after 1, 2, 4 ... 60 s when it is lost or refused, with a persistent session
 * (messages sent to hark while it was away are kept for it). MQTT.js is loaded only when MQTT is
 * on (its CommonJS exports are under `default` once bundled, and in Node alike).
 */
export class BrokerConnection {
  private state: BrokerStatus;
  private backoffMs = FIRST_BACKOFF_MS;
  private retry: NodeJS.Timeout | undefined;
  private closing = false;
  private failures = 0;

  private constructor(
    private readonly client: MqttClient,
    private readonly options: ConnectionOptions,
  ) {
    this.state = { connected: false, url: options.broker.url, error: undefined, fix: undefined };
  }

  static async open(options: ConnectionOptions): Promise<BrokerConnection> {
    const { connect } = (await import('mqtt')).default;
    const client = connect(options.broker.url, clientOptions(options));
    const connection = new BrokerConnection(client, options);
    connection.follow();
    client.connect();
    return connection;
  }

  status(): BrokerStatus {
    return this.state;
  }

  /**
   * Sends now, or (QoS 1) once connected again; retained QoS 0 is sent by `connected` on
   * reconnection. Scrubbed of secrets first, as the log is (a failure's words may quote one).
   */
  publish(topic: string, payload: string, options: { retain: boolean; qos: 0 | 1 }): void {
    if (this.closing || (!this.client.connected && options.qos === 0)) return;
    this.client.publish(topic, redact(payload), options, (error) => {
      if (error && !this.closing) this.options.logger.debug('mqtt.unsent', { topic, error: error.message });
    });
  }

  /** Says `lastWords` (retained) if connected, and disconnects cleanly; settles within 2 s however the broker is. */
  async close(lastWords?: { topic: string; payload: string }): Promise<void> {
    this.closing = true;
    clearTimeout(this.retry);
    const client = this.client;
    if (client.connected && lastWords) {
      await Promise.race([
        client.publishAsync(lastWords.topic, lastWords.payload, { retain: true, qos: 1 }).catch(() => undefined),
        pause(1000),
      ]);
    }
    await Promise.race([client.endAsync(!client.connected).catch(() => undefined), pause(1000)]);
    client.end(true);
  }

  private follow(): void {
    const { client, options } = this;
    const { logger, broker } = options;
    client.handleMessage = (packet: IPublishPacket, done) => {
      const payload = Buffer.isBuffer(packet.payload) ? packet.payload.toString('utf8') : packet.payload;
      Promise.resolve()
        .then(() => options.received(packet.topic, payload, packet.retain))
        .catch((error: unknown) => logger.error('mqtt.message_failed', { topic: packet.topic, error: error as Error }))
        .finally(() => done());
    };
    client.on('connect', () => {
      this.backoffMs = FIRST_BACKOFF_MS;
      this.failures = 0;
      this.set({ connected: true, url: broker.url });
      logger.info('mqtt.connected', { broker: broker.url, clientId: options.clientId });
      options.connected(client);
    });
    client.on('error', (error) => {
      const fix = fixFor(error);
      if (!this.closing) this.set({ connected: false, url: broker.url, error: error.message, fix });
    });
    client.on('close', () => {
      if (this.closing) return;
      const was = this.state;
      const error = was.connected ? 'the connection was lost' : (was.error ?? 'the connection was closed');
      const fix = was.connected ? undefined : was.fix;
      this.set({ connected: false, url: broker.url, error, fix });
      const fields = { broker: broker.url, error, ...(fix ? { fix } : {}), retryInMs: this.backoffMs };
      // Said once per outage; each further attempt at debug.
      if (this.failures++ === 0) logger.warn('mqtt.disconnected', fields);
      else logger.debug('mqtt.disconnected', fields);
      this.retry = setTimeout(() => client.connect(), this.backoffMs);
      this.backoffMs = Math.min(MAX_BACKOFF_MS, this.backoffMs * 2);
    });
  }

  private set(state: BrokerStatus): void {
    this.state = state;
    this.options.changed?.(state);
  }
}

function clientOptions(options: ConnectionOptions): IClientOptions {
  return {
    clientId: options.clientId,
    username: options.broker.username,
    password: options.broker.password,
    protocolVersion: 4,
    clean: false,
    keepalive: 60,
    connectTimeout: 10_000,
    // hark reconnects itself, with backoff (MQTT.js would try again at one fixed pace).
    reconnectPeriod: 0,
    manualConnect: true,
    queueQoSZero: false,
    will: { topic: options.will.topic, payload: Buffer.from(options.will.payload), qos: 1, retain: true },
  };
}

/** Connects once (a clean session of its own, no last will), within `timeoutMs`, and leaves. */
export async function probeBroker(broker: Broker, clientId: string, timeoutMs = 5000): Promise<BrokerStatus> {
  const { connectAsync } = (await import('mqtt')).default;
  try {
    const client = await connectAsync(broker.url, {
      clientId,
      username: broker.username,
      password: broker.password,
      protocolVersion: 4,
      clean: true,
      connectTimeout: timeoutMs,
      reconnectPeriod: 0,
    });
    await client.endAsync();
    return { connected: true, url: broker.url };
  } catch (error) {
    const failure = error as Error;
    return { connected: false, url: broker.url, error: failure.message, fix: fixFor(failure) };
  }
}

/** What to do about a failure, where hark can tell. */
function fixFor(error: Error): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNREFUSED') return 'is the broker running, on that port? (sudo apt install mosquitto)';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'check the host name in mqtt.url';
  if (/not authori[sz]ed|bad user ?name or password/i.test(error.message))
    return "check mqtt.username and mqtt.password's ${NAME}, and the broker's password file";
  return undefined;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref());
