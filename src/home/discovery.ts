/**
 * hark as Home Assistant sees it through MQTT discovery: one device, its entities, and the
 * topics they read and write. Pure: app/home/home.ts publishes what this describes. Each payload
 * carries what Home Assistant requires of its component (test/helpers/home-assistant.ts checks
 * them against Home Assistant's own schemas).
 */

/** What the state sensor says hark is doing. */
export const HOME_STATES = ['idle', 'listening', 'thinking', 'speaking', 'muted', 'error'] as const;
export type HomeState = (typeof HOME_STATES)[number];

/** What the conversation event entity reports: a turn, the answer to a question, an announcement's outcome. */
export const HOME_EVENT_TYPES = ['turn', 'answer', 'announcement'] as const;

/** Home Assistant keeps at most this many characters of a state. */
export const STATE_MAX_CHARS = 255;

export interface HomeDevice {
  /** Names this hark among others: the discovery topics' node id, every unique_id's prefix, the device's identifier. */
  nodeId: string;
  /** The device's name in Home Assistant. */
  name: string;
  /** hark's version. */
  version: string;
  discoveryPrefix: string;
  baseTopic: string;
}

/** The topics hark publishes (retained states, availability, events) and reads (commands). */
export function homeTopics(base: string) {
  return {
    availability: `${base}/availability`,
    state: `${base}/state`,
    heard: `${base}/heard`,
    reply: `${base}/reply`,
    timers: `${base}/timers`,
    mute: `${base}/mute`,
    muteSet: `${base}/mute/set`,
    volume: `${base}/volume`,
    volumeSet: `${base}/volume/set`,
    stop: `${base}/stop`,
    listen: `${base}/listen`,
    announce: `${base}/announce`,
    ask: `${base}/ask`,
    event: `${base}/event`,
  };
}
export type HomeTopics = ReturnType<typeof homeTopics>;

/** `hark/kitchen` → `hark_kitchen`: what Home Assistant allows in a node id (letters, digits, `_`, `-`). */
export function nodeIdOf(baseTopic: string): string {
  return baseTopic.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+|_+$/g, '') || 'hark';
}

/** Text as a state: at most STATE_MAX_CHARS characters (Home Assistant drops a longer one), cut with an ellipsis. */
export function asState(text: string): string {
  return text.length <= STATE_MAX_CHARS ? text : `${text.slice(0, STATE_MAX_CHARS - 1)}…`;
}

export interface DiscoveryMessage {
  /** `<discoveryPrefix>/<component>/<nodeId>/<object>/config`, published retained. */
  topic: string;
  component: string;
  payload: Record<string, unknown>;
}

/** Every entity of the device, as its retained discovery message. */
export function discoveryMessages(device: HomeDevice): DiscoveryMessage[] {
  const topics = homeTopics(device.baseTopic);
  const common = (object: string, name: string, icon: string) => ({
    name,
    unique_id: `${device.nodeId}_${object}`,
    icon,
    availability_topic: topics.availability,
    device: {
      identifiers: [device.nodeId],
      name: device.name,
      manufacturer: 'hark',
      model: 'hark voice assistant',
      sw_version: device.version,
    },
    origin: { name: 'hark', sw_version: device.version },
  });
  const entity = (component: string, object: string, payload: Record<string, unknown>): DiscoveryMessage => ({
    topic: `${device.discoveryPrefix}/${component}/${device.nodeId}/${object}/config`,
    component,
    payload,
  });
  return [
    entity('sensor', 'state', {
      ...common('state', 'State', 'mdi:account-voice'),
      state_topic: topics.state,
      device_class: 'enum',
      options: [...HOME_STATES],
    }),
    entity('sensor', 'heard', {
      ...common('heard', 'Last heard', 'mdi:comment-account'),
      state_topic: topics.heard,
    }),
    entity('sensor', 'reply', {
      ...common('reply', 'Last reply', 'mdi:comment-text'),
      state_topic: topics.reply,
    }),
    entity('sensor', 'next_timer', {
      ...common('next_timer', 'Next timer', 'mdi:timer-outline'),
      state_topic: topics.timers,
      device_class: 'timestamp',
      // null (no timer set) renders as "None": unknown.
      value_template: '{{ value_json.next }}',
      json_attributes_topic: topics.timers,
    }),
    entity('switch', 'mute', {
      ...common('mute', 'Mute microphone', 'mdi:microphone-off'),
      command_topic: topics.muteSet,
      state_topic: topics.mute,
      payload_on: 'ON',
      payload_off: 'OFF',
      qos: 1,
    }),
    entity('button', 'stop', {
      ...common('stop', 'Stop', 'mdi:stop-circle-outline'),
      command_topic: topics.stop,
      payload_press: 'PRESS',
      qos: 1,
    }),
    entity('button', 'listen', {
      ...common('listen', 'Listen', 'mdi:microphone-message'),
      command_topic: topics.listen,
      payload_press: 'PRESS',
      qos: 1,
    }),
    entity('number', 'volume', {
      ...common('volume', 'Volume', 'mdi:volume-high'),
      command_topic: topics.volumeSet,
      state_topic: topics.volume,
      min: 0,
      max: 100,
      step: 1,
      mode: 'slider',
      unit_of_measurement: '%',
      qos: 1,
    }),
    entity('notify', 'announce', {
      ...common('announce', 'Announce', 'mdi:bullhorn'),
      command_topic: topics.announce,
      qos: 1,
    }),
    entity('text', 'ask', {
      ...common('ask', 'Ask', 'mdi:chat-question'),
      command_topic: topics.ask,
      min: 1,
      max: STATE_MAX_CHARS,
      mode: 'text',
      qos: 1,
    }),
    entity('event', 'conversation', {
      ...common('conversation', 'Conversation', 'mdi:forum'),
      state_topic: topics.event,
      event_types: [...HOME_EVENT_TYPES],
    }),
  ];
}
