import { hostname } from 'node:os';
import { join } from 'node:path';
import { BehaviorSubject, Subscription, type Observable } from 'rxjs';
import type { MqttClient } from 'mqtt';
import type { HarkConfig } from '../../config/schema.js';
import { LIMITS } from '../../contract/limits.js';
import {
  asState,
  discoveryMessages,
  homeTopics,
  nodeIdOf,
  type HomeDevice,
  type HomeTopics,
} from '../../home/discovery.js';
import { NoticeQueue, type Unsaid } from '../../home/notice-queue.js';
import type { AssistantEvent, NoticeEvent } from '../../pipeline/events.js';
import type { Notice } from '../../pipeline/ports.js';
import { JsonFile } from '../../system/json-file.js';
import type { Logger } from '../../system/logger.js';
import type { Part } from '../../system/parts.js';
import { packageVersion } from '../../system/package-paths.js';
import type { TimerEntry } from '../../tools/timer-book.js';
import { answering, type Moment } from './moments.js';
import { BrokerConnection, type Broker, type BrokerStatus } from './mqtt-connection.js';
import { stateDirectory } from '../tools/tools.js';
import type { VoiceLoop } from '../compose/voice-loop.js';

/** At most this many announcements and questions wait; more are refused (and the sender told). */
const MAX_WAITING = 20;

export interface HomeSetup {
  broker: Broker;
  logger: Logger;
  /** Where announcements wait across restarts (default: hark's state directory). */
  stateDir?: string | undefined;
}

/** hark in the home: Home Assistant sees it, controls it and speaks through it (MQTT discovery). */
export interface Home extends Part {
  /** What the home asks hark to say, for the voice loop: those kept from before first. */
  notices: Observable<Notice>;
  /** Connects in the background (nothing waits for the broker) and follows the loop. */
  attach(loop: VoiceLoop, moments: Observable<Moment>): Promise<void>;
  /** Connected to the broker, or why not; and each change of it. */
  status: Observable<BrokerStatus>;
  /** Says `offline` (retained) and disconnects. */
  stop(): Promise<void>;
}

/** The device as Home Assistant shows it: named after this machine unless configured. */
export function homeDevice(config: HarkConfig, host: string = hostname()): HomeDevice {
  const machine = host.split('.')[0]?.toLowerCase() || 'hark';
  const baseTopic = config.mqtt.baseTopic ?? `hark/${machine}`;
  return {
    nodeId: nodeIdOf(baseTopic),
    name: config.mqtt.deviceName ?? `hark ${machine}`,
    version: packageVersion(),
    discoveryPrefix: config.mqtt.discoveryPrefix,
    baseTopic,
  };
}

/** Reads the announcements kept from before; the broker is connected to by `attach`. */
export async function openHome(config: HarkConfig, setup: HomeSetup): Promise<Home> {
  const { logger, broker } = setup;
  const device = homeDevice(config);
  const topics = homeTopics(device.baseTopic);
  const path = join(setup.stateDir ?? stateDirectory(), 'announcements.json');
  const queue = new NoticeQueue({
    file: new JsonFile(path, 'announcements', logger),
    now: () => Date.now(),
    monotonic: () => performance.now(),
    keepMs: config.mqtt.keepAnnouncementsMs,
    maxWaiting: MAX_WAITING,
    maxChars: LIMITS.speech.inputMaxChars,
  });
  const stale = await queue.load();
  if (queue.waitingNow().length) logger.info('notices.loaded', { path, waiting: queue.waitingNow().length });
  const status = new BehaviorSubject<BrokerStatus>({
    connected: false,
    url: broker.url,
    error: undefined,
    fix: undefined,
  });
  const subscriptions = new Subscription();
  let connection: BrokerConnection | undefined;
  let stopped = false;
  return {
    notices: queue.notices,
    status,
    async attach(loop, moments) {
      const home = new HomeTopicsPublisher(device, topics, queue, loop, logger);
      connection = await BrokerConnection.open({
        broker,
        clientId: device.nodeId,
        will: { topic: topics.availability, payload: 'offline' },
        logger,
        connected: (client) => home.connected(client),
        received: (topic, payload, retained) => home.received(topic, payload, retained),
        changed: (now) => status.next(now),
      });
      if (stopped) return void (await connection.close());
      home.publishTo(connection);
      for (const unsaid of stale) home.unsaid(unsaid);
      subscriptions.add(home.follow(moments));
    },
    async stop() {
      stopped = true;
      subscriptions.unsubscribe();
      await connection?.close({ topic: topics.availability, payload: 'offline' });
      status.complete();
    },
  };
}

/** What goes between the loop and the broker: states and events out, commands in. */
class HomeTopicsPublisher {
  private connection: BrokerConnection | undefined;
  /** Retained states as last published: all of them again after a reconnection. */
  private readonly states = new Map<string, string>();
  /** A question said, whose answer (the next query) is published. */
  private asked: { id: string; question: string } | undefined;
  private retainedCommands = 0;

  constructor(
    private readonly device: HomeDevice,
    private readonly topics: HomeTopics,
    private readonly queue: NoticeQueue,
    private readonly loop: VoiceLoop,
    private readonly logger: Logger,
  ) {}

  publishTo(connection: BrokerConnection): void {
    this.connection = connection;
  }

  /** Subscribes to the commands, then says what hark is: discovery, availability, every state. */
  connected(client: MqttClient): void {
    const { topics } = this;
    const commands = [topics.announce, topics.ask, topics.muteSet, topics.stop, topics.listen, topics.volumeSet];
    client.subscribe([...commands, `${this.device.discoveryPrefix}/status`], { qos: 1 });
    this.republish();
    void this.refreshVolume();
  }

  async received(topic: string, payload: string, retained: boolean): Promise<void> {
    const { topics, loop } = this;
    if (topic === `${this.device.discoveryPrefix}/status`) {
      // Home Assistant started again: it is told what hark is.
      if (payload === 'online') this.republish();
      return;
    }
    if (retained) {
      if (this.retainedCommands++ === 0)
        this.logger.warn('mqtt.retained_command', {
          topic,
          why: 'a retained command would act again at every connection; it is ignored',
          fix: `clear it: mosquitto_pub -r -n -t ${topic}`,
        });
      return;
    }
    if (topic === topics.announce || topic === topics.ask) {
      const refused = await this.queue.add(topic === topics.ask ? 'ask' : 'announce', payload);
      if (refused) this.unsaid(refused);
    } else if (topic === topics.muteSet) {
      const on = payload.trim().toUpperCase();
      if (on !== 'ON' && on !== 'OFF')
        return this.logger.warn('mqtt.bad_command', { topic, payload, expected: 'ON or OFF' });
      loop.mute(on === 'ON');
      this.logger.info('mic.muted', { muted: on === 'ON', by: 'mqtt' });
    } else if (topic === topics.stop) {
      loop.stopSpeaking();
      this.logger.info('mqtt.stop', {});
    } else if (topic === topics.listen) {
      loop.listen();
    } else if (topic === topics.volumeSet) {
      const percent = Number(payload.trim());
      if (!payload.trim() || !Number.isFinite(percent))
        return this.logger.warn('mqtt.bad_command', { topic, payload, expected: 'a number, 0 to 100' });
      await this.loop.volume
        .set(percent)
        .then((now) => this.state(topics.volume, String(now.percent)))
        .catch((error: unknown) => this.logger.warn('volume.failed', { error: error as Error, by: 'mqtt' }));
    }
  }

  /** The loop's states and events, published as they come. */
  follow(moments: Observable<Moment>): Subscription {
    const { topics, loop } = this;
    const following = new Subscription();
    following.add(
      moments.subscribe((moment) => {
        this.state(topics.state, moment.state);
        if ((moment.state === 'idle' || moment.state === 'muted') && this.asked) this.answered('');
      }),
    );
    following.add(loop.muted.subscribe((on) => this.state(topics.mute, on ? 'ON' : 'OFF')));
    if (loop.timersSet) following.add(loop.timersSet.subscribe((set) => this.state(topics.timers, timersState(set))));
    following.add(loop.events.subscribe({ next: (event) => this.onEvent(event), error: () => undefined }));
    return following;
  }

  unsaid(unsaid: Unsaid): void {
    this.logger.warn('notice.unsaid', { id: unsaid.id, kind: unsaid.kind, why: unsaid.why });
    this.event({ event_type: 'announcement', ...unsaid, spoken: false });
  }

  private onEvent(event: AssistantEvent): void {
    const { topics } = this;
    if (event.type === 'query' && !event.query.transcript.tentative) {
      this.state(topics.heard, asState(event.query.text));
      if (this.asked) this.answered(event.query.text);
    } else if (event.type === 'turn') {
      const { turn } = event;
      this.state(topics.reply, asState(turn.reply));
      const failed = turn.failed?.message ?? null;
      this.event({
        event_type: 'turn',
        transcript: turn.query.text,
        reply: turn.reply,
        interrupted: turn.interrupted,
        failed,
      });
    } else if (event.type === 'notice') {
      this.onNotice(event);
    } else if (event.type === 'tool' && event.name === 'volume' && event.phase === 'finished') {
      void this.refreshVolume();
    }
  }

  private onNotice(event: NoticeEvent): void {
    if (event.phase === 'started' || (event.phase === 'stopped' && event.by === 'shutdown')) return;
    const { id, kind, text } = event.notice;
    void this.queue.done(id);
    if (event.phase === 'failed')
      return this.unsaid({ id, kind, text, why: `its speech failed: ${event.error.message}` });
    const spoken = event.phase === 'spoken';
    this.event({
      event_type: 'announcement',
      id,
      kind,
      text,
      spoken,
      ...(spoken ? {} : { why: `stopped (${event.by})` }),
    });
    if (kind !== 'ask' || !answering(event)) return;
    // A question still unanswered when the next is asked: it never will be.
    this.answered('');
    this.asked = { id, question: text };
  }

  private answered(answer: string): void {
    const asked = this.asked;
    if (!asked) return;
    this.asked = undefined;
    this.event({ event_type: 'answer', id: asked.id, question: asked.question, answer, answered: answer !== '' });
  }

  /** Discovery first (Home Assistant makes the entities), then availability, then every state. */
  private republish(): void {
    const connection = this.connection;
    if (!connection) return;
    for (const message of discoveryMessages(this.device)) {
      connection.publish(message.topic, JSON.stringify(message.payload), { retain: true, qos: 1 });
    }
    connection.publish(this.topics.availability, 'online', { retain: true, qos: 1 });
    for (const [topic, payload] of this.states) connection.publish(topic, payload, { retain: true, qos: 0 });
  }

  private async refreshVolume(): Promise<void> {
    try {
      this.state(this.topics.volume, String((await this.loop.volume.get()).percent));
    } catch (error) {
      this.logger.debug('volume.failed', { error: error as Error, by: 'mqtt' });
    }
  }

  private state(topic: string, payload: string): void {
    if (this.states.get(topic) === payload) return;
    this.states.set(topic, payload);
    this.connection?.publish(topic, payload, { retain: true, qos: 0 });
  }

  private event(payload: { event_type: string } & Record<string, unknown>): void {
    this.connection?.publish(this.topics.event, JSON.stringify(payload), { retain: false, qos: 1 });
  }
}

/** The next timer or alarm due (ISO time, null for none) and how many are set. */
function timersState(set: readonly TimerEntry[]): string {
  const next = set[0];
  return JSON.stringify({
    next: next ? new Date(next.dueAt).toISOString() : null,
    count: set.length,
    label: next?.label ?? null,
    kind: next?.kind ?? null,
  });
}
