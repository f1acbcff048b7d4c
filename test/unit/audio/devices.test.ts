import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alsaDevices, pipewireDevices, pulseDevices } from '../../../src/audio/devices.js';

const fixture = (name: string) =>
  readFileSync(resolve(import.meta.dirname, '../../fixtures/sound-servers', name), 'utf8');

describe('devices', () => {
  it('ALSA cards by card id, which survives a reboot that renumbers USB cards', () => {
    const listing =
      '**** List of PLAYBACK Hardware Devices ****\n' +
      'card 1: Headphones [bcm2835 Headphones], device 0: bcm2835 Headphones [bcm2835 Headphones]\n' +
      '  Subdevices: 8/8\n';
    expect(alsaDevices('playback', listing)).toEqual([
      {
        kind: 'playback',
        name: 'plughw:CARD=Headphones,DEV=0',
        description: 'bcm2835 Headphones - bcm2835 Headphones',
        system: 'alsa',
      },
    ]);
  });

  it('PulseAudio sinks and sources by name with their description, monitors left out', () => {
    const devices = pulseDevices({
      sinks: fixture('pactl-list-sinks.txt'),
      sources: fixture('pactl-list-sources.txt'),
      info: 'Server Name: pulseaudio\nServer Version: 16.1\n',
    });
    expect(devices).toEqual([
      { kind: 'playback', name: 'hark_speaker', description: 'Hark_Speaker', system: 'pulse' },
      { kind: 'playback', name: 'hark_mic_feed', description: 'Null Output', system: 'pulse' },
      { kind: 'capture', name: 'hark_mic', description: 'Hark_Mic', system: 'pulse' },
    ]);
  });

  it('through PipeWire’s pulse service, says PipeWire', () => {
    const devices = pulseDevices({
      sinks: fixture('pactl-list-sinks.txt'),
      info: 'Server Name: PulseAudio (on PipeWire 1.2.7)\n',
    });
    expect(devices[0]).toMatchObject({ name: 'hark_speaker', system: 'pipewire' });
  });

  it('PipeWire without its pulse service: audio sinks and sources from pw-dump', () => {
    expect(pipewireDevices(fixture('pw-dump.json'))).toEqual([
      { kind: 'playback', name: 'hark_sink', description: 'Hark Sink', system: 'pipewire' },
      { kind: 'capture', name: 'hark_source', description: 'Hark Mic', system: 'pipewire' },
    ]);
    expect(pipewireDevices('not json')).toEqual([]);
  });
});
