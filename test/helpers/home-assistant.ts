/**
 * What Home Assistant requires of an MQTT discovery message, written out from its own schemas
 * (home-assistant/core, homeassistant/components/mqtt: config.py's MQTT_RO_SCHEMA and
 * MQTT_RW_SCHEMA, schemas.py's MQTT_ENTITY_COMMON_SCHEMA and device schema, discovery.py's topic,
 * and each component's file: sensor.py, switch.py, button.py, number.py, notify.py, text.py,
 * event.py). Keys Home Assistant does not know are dropped by it in silence (REMOVE_EXTRA):
 * here they are a mistake, so that a misspelt key cannot pass unnoticed.
 */

type Payload = Record<string, unknown>;

/** discovery.py: after `<prefix>/`, `<component>/[<node_id>/]<object_id>/config`. */
const DISCOVERY_TOPIC = /^(?<component>\w+)\/(?:(?<node>[a-zA-Z0-9_-]+)\/)?(?<object>[a-zA-Z0-9_-]+)\/config$/;

/** MQTT_BASE_SCHEMA and MQTT_ENTITY_COMMON_SCHEMA (with availability): what every component takes. */
const COMMON = [
  'qos',
  'encoding',
  'availability',
  'availability_mode',
  'availability_template',
  'availability_topic',
  'payload_available',
  'payload_not_available',
  'device',
  'origin',
  'enabled_by_default',
  'entity_category',
  'icon',
  'json_attributes_topic',
  'json_attributes_template',
  'object_id',
  'unique_id',
  'default_entity_id',
  'name',
];
const RO = ['state_topic', 'value_template'];
const RW = ['command_topic', 'optimistic', 'retain', 'state_topic'];

interface ComponentRules {
  required: string[];
  allowed: string[];
  check?: (payload: Payload) => string[];
}

const COMPONENTS: Record<string, ComponentRules> = {
  sensor: {
    required: ['state_topic'],
    allowed: [
      ...RO,
      'device_class',
      'expire_after',
      'force_update',
      'last_reset_value_template',
      'options',
      'suggested_display_precision',
      'state_class',
      'unit_of_measurement',
    ],
    check: (p) => {
      const problems: string[] = [];
      if (p.options !== undefined) {
        if (!Array.isArray(p.options) || p.options.length === 0) problems.push('options: a non-empty list');
        if (p.state_class || p.unit_of_measurement)
          problems.push('options: not with state_class or unit_of_measurement');
        if (p.device_class !== 'enum') problems.push('options: only with device_class enum');
      }
      if (p.device_class === 'enum' && p.options === undefined) problems.push('device_class enum: needs options');
      if (p.entity_category === 'config') problems.push('entity_category: a sensor cannot be config');
      return problems;
    },
  },
  switch: {
    required: ['command_topic'],
    allowed: [...RW, 'device_class', 'payload_on', 'payload_off', 'state_on', 'state_off', 'value_template'],
    check: (p) => oneOf(p, 'device_class', ['outlet', 'switch']),
  },
  button: {
    required: ['command_topic'],
    allowed: ['command_topic', 'command_template', 'device_class', 'payload_press', 'retain'],
    check: (p) => oneOf(p, 'device_class', ['identify', 'restart', 'update']),
  },
  number: {
    required: ['command_topic'],
    allowed: [
      ...RW,
      'command_template',
      'device_class',
      'min',
      'max',
      'mode',
      'payload_reset',
      'step',
      'unit_of_measurement',
      'value_template',
    ],
    check: (p) => {
      const min = typeof p.min === 'number' ? p.min : 1;
      const max = typeof p.max === 'number' ? p.max : 100;
      const problems = oneOf(p, 'mode', ['auto', 'box', 'slider']);
      if (min >= max) problems.push("'max' must be > 'min'");
      if (p.step !== undefined && (typeof p.step !== 'number' || p.step < 1e-3)) problems.push('step: at least 0.001');
      return problems;
    },
  },
  notify: {
    required: ['command_topic'],
    allowed: ['command_topic', 'command_template', 'retain'],
  },
  text: {
    required: ['command_topic'],
    allowed: [...RW, 'command_template', 'max', 'min', 'mode', 'pattern', 'value_template'],
    check: (p) => {
      const min = typeof p.min === 'number' ? p.min : 0;
      const max = typeof p.max === 'number' ? p.max : 255;
      const problems = oneOf(p, 'mode', ['text', 'password']);
      if (!Number.isInteger(min) || min < 0 || !Number.isInteger(max) || max < 0)
        problems.push('min, max: whole numbers');
      // Earlier releases required min < max, later ones min <= max: the stricter holds for both.
      if (min >= max) problems.push('text length min must be below max');
      if (max > 255) problems.push('max text length must be <= 255');
      return problems;
    },
  },
  event: {
    required: ['state_topic', 'event_types'],
    allowed: [...RO, 'device_class', 'event_types'],
    check: (p) => {
      const problems = oneOf(p, 'device_class', ['button', 'doorbell', 'motion']);
      if (!Array.isArray(p.event_types) || p.event_types.some((t) => typeof t !== 'string'))
        problems.push('event_types: a list of strings');
      return problems;
    },
  },
};

function oneOf(payload: Payload, key: string, values: string[]): string[] {
  const value = payload[key];
  return value === undefined || values.includes(value as string) ? [] : [`${key}: one of ${values.join(', ')}`];
}

/** util.py's valid_publish_topic: no wildcards, no null character, at most 65535 bytes. */
function publishTopicProblem(key: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return `${key}: a topic`;
  if (/[#+\0]/.test(value)) return `${key}: no wildcards in a topic published to`;
  if (Buffer.byteLength(value) > 65535) return `${key}: too long`;
  return undefined;
}

/** The device block (schemas.py): identifiers and/or connections; known keys only. */
function deviceProblems(device: unknown): string[] {
  if (typeof device !== 'object' || device === null) return ['device: a mapping'];
  const block = device as Payload;
  const known = [
    'identifiers',
    'connections',
    'manufacturer',
    'model',
    'model_id',
    'name',
    'hw_version',
    'serial_number',
    'sw_version',
    'via_device',
    'suggested_area',
    'configuration_url',
  ];
  const problems = Object.keys(block)
    .filter((k) => !known.includes(k))
    .map((k) => `device.${k}: unknown`);
  const ids = block.identifiers;
  const hasIds = Array.isArray(ids) ? ids.length > 0 : typeof ids === 'string';
  if (!hasIds && !block.connections) problems.push("device: needs at least one of 'identifiers' and 'connections'");
  if (Array.isArray(ids) && ids.some((id) => typeof id !== 'string')) problems.push('device.identifiers: strings');
  for (const key of ['name', 'manufacturer', 'model', 'sw_version'])
    if (block[key] !== undefined && typeof block[key] !== 'string') problems.push(`device.${key}: a string`);
  return problems;
}

/**
 * Every way `payload`, published on `topic`, falls short of what Home Assistant (reading
 * discovery under `prefix`) requires; none when it does not.
 */
export function discoveryProblems(topic: string, payload: Payload, prefix = 'homeassistant'): string[] {
  if (!topic.startsWith(`${prefix}/`)) return [`${topic}: not under the discovery prefix ${prefix}`];
  const match = DISCOVERY_TOPIC.exec(topic.slice(prefix.length + 1));
  if (!match?.groups) return [`${topic}: not <prefix>/<component>/[<node_id>/]<object_id>/config`];
  const component = match.groups.component as string;
  const rules = COMPONENTS[component];
  if (!rules) return [`${component}: no component of this check`];
  const problems: string[] = [];
  for (const key of rules.required) if (payload[key] === undefined) problems.push(`${key}: required`);
  const allowed = new Set([...COMMON, ...rules.allowed]);
  for (const key of Object.keys(payload)) if (!allowed.has(key)) problems.push(`${key}: not a ${component} option`);
  for (const key of ['command_topic']) {
    const problem = payload[key] === undefined ? undefined : publishTopicProblem(key, payload[key]);
    if (problem) problems.push(problem);
  }
  for (const key of ['state_topic', 'availability_topic', 'json_attributes_topic'])
    if (payload[key] !== undefined && (typeof payload[key] !== 'string' || payload[key] === ''))
      problems.push(`${key}: a topic`);
  if (payload.availability !== undefined && payload.availability_topic !== undefined)
    problems.push('availability and availability_topic: not both');
  if (payload.qos !== undefined && ![0, 1, 2].includes(payload.qos as number)) problems.push('qos: 0, 1 or 2');
  if (
    payload.icon !== undefined &&
    !(typeof payload.icon === 'string' && /^[a-z0-9_-]+:[a-z0-9_-]+$/i.test(payload.icon))
  )
    problems.push('icon: prefix:name, such as mdi:microphone');
  if (payload.device !== undefined) {
    problems.push(...deviceProblems(payload.device));
    // "Only works through MQTT discovery and when unique_id is set."
    if (typeof payload.unique_id !== 'string') problems.push('device: needs a unique_id');
  }
  if (payload.origin !== undefined && typeof (payload.origin as Payload).name !== 'string')
    problems.push('origin.name: required');
  problems.push(...(rules.check?.(payload) ?? []));
  return problems;
}
