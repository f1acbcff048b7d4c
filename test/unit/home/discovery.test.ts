import { describe, expect, it } from 'vitest';
import { homeDevice } from '../../../src/app/home/home.js';
import { defaultConfig } from '../../../src/config/schema.js';
import {
  HOME_STATES,
  asState,
  discoveryMessages,
  homeTopics,
  nodeIdOf,
  type HomeDevice,
} from '../../../src/home/discovery.js';
import { discoveryProblems } from '../../helpers/home-assistant.js';

const device: HomeDevice = {
  nodeId: 'hark_kitchen',
  name: 'hark kitchen',
  version: '0.1.0',
  discoveryPrefix: 'homeassistant',
  baseTopic: 'hark/kitchen',
};

describe('what Home Assistant is told hark is', () => {
  it('every discovery message holds what Home Assistant requires of its component', () => {
    const messages = discoveryMessages(device);
    expect(messages.map((m) => m.component).sort()).toEqual(
      [
        'button',
        'button',
        'event',
        'notify',
        'number',
        'sensor',
        'sensor',
        'sensor',
        'sensor',
        'switch',
        'text',
      ].sort(),
    );
    for (const { topic, payload } of messages) expect(discoveryProblems(topic, payload), topic).toEqual([]);
  });

  it('the check catches what Home Assistant would refuse', () => {
    const [state] = discoveryMessages(device);
    const broken = { ...state?.payload, options: undefined, colour: 'red', device: { name: 'hark' } };
    expect(discoveryProblems(state?.topic ?? '', broken)).toEqual([
      'colour: not a sensor option',
      "device: needs at least one of 'identifiers' and 'connections'",
      'device_class enum: needs options',
    ]);
    expect(discoveryProblems('homeassistant/text/hark/ask/config', { command_topic: 'a/+', min: 3, max: 300 })).toEqual(
      ['command_topic: no wildcards in a topic published to', 'max text length must be <= 255'],
    );
  });

  it('one device; each entity its own unique_id, the availability topic, and topics under the base topic', () => {
    const messages = discoveryMessages(device);
    const ids = messages.map((m) => m.payload.unique_id);
    expect(new Set(ids).size).toBe(messages.length);
    for (const { topic, payload } of messages) {
      expect(topic).toMatch(/^homeassistant\/\w+\/hark_kitchen\/[a-z_]+\/config$/);
      expect(payload.unique_id).toMatch(/^hark_kitchen_/);
      expect(payload.availability_topic).toBe('hark/kitchen/availability');
      expect(payload.device).toEqual({
        identifiers: ['hark_kitchen'],
        name: 'hark kitchen',
        manufacturer: 'hark',
        model: 'hark voice assistant',
        sw_version: '0.1.0',
      });
      for (const key of ['state_topic', 'command_topic']) {
        if (payload[key] !== undefined) expect(payload[key]).toMatch(/^hark\/kitchen\//);
      }
    }
    const state = messages.find((m) => m.payload.unique_id === 'hark_kitchen_state');
    expect(state?.payload.options).toEqual([...HOME_STATES]);
    expect(homeTopics('hark/kitchen').announce).toBe('hark/kitchen/announce');
  });

  it('the same machine and configuration give the same ids on every start', () => {
    const config = defaultConfig();
    const first = homeDevice(config, 'kitchen-pi.local');
    expect(first).toMatchObject({ nodeId: 'hark_kitchen-pi', name: 'hark kitchen-pi', baseTopic: 'hark/kitchen-pi' });
    expect(discoveryMessages(homeDevice(config, 'kitchen-pi.local'))).toEqual(discoveryMessages(first));
    config.mqtt.baseTopic = 'house/first floor/hark';
    config.mqtt.deviceName = 'Landing';
    expect(homeDevice(config, 'kitchen-pi')).toMatchObject({ nodeId: 'house_first_floor_hark', name: 'Landing' });
  });

  it('node ids keep only what Home Assistant allows, and a long text is cut to a state it keeps', () => {
    expect(nodeIdOf('hark/Küche 2')).toBe('hark_K_che_2');
    expect(nodeIdOf('///')).toBe('hark');
    const long = 'word '.repeat(80);
    expect(asState(long)).toHaveLength(255);
    expect(asState(long).endsWith('…')).toBe(true);
    expect(asState('short')).toBe('short');
  });
});
