import { runChild } from '../system/spawn.js';

export interface AudioDevice {
  kind: 'capture' | 'playback';
  /** What to put in audio.captureDevice / audio.playbackDevice. */
  name: string;
  description: string;
  system: 'alsa' | 'pulse';
}

function run(command: string, args: string[]): string | undefined {
  // Untranslated output: the listing is parsed.
  const result = runChild(command, args, { timeout: 5000, env: { LC_ALL: 'C' } });
  return result.status === 0 ? result.stdout : undefined;
}

/** `arecord -l` / `aplay -l` cards, named by card id so the name survives a reboot that reorders USB cards. */
export function alsaDevices(
  kind: 'capture' | 'playback',
  listing = run(kind === 'capture' ? 'arecord' : 'aplay', ['-l']),
): AudioDevice[] {
  if (!listing) return [];
  const devices: AudioDevice[] = [];
  for (const line of listing.split('\n')) {
    const match = /^card (\d+): (\S+) \[([^\]]*)\], device (\d+): [^[]*\[([^\]]*)\]/.exec(line);
    if (!match) continue;
    const [, , id, cardName, device, deviceName] = match;
    devices.push({
      kind,
      name: `plughw:CARD=${id},DEV=${device}`,
      description: `${cardName} - ${deviceName}`,
      system: 'alsa',
    });
  }
  return devices;
}

/** Sources and sinks of a running PulseAudio or PipeWire (through pactl), monitors left out. */
export function pulseDevices(): AudioDevice[] {
  const devices: AudioDevice[] = [];
  for (const [kind, what] of [
    ['capture', 'sources'],
    ['playback', 'sinks'],
  ] as const) {
    const listing = run('pactl', ['list', 'short', what]);
    for (const line of listing?.split('\n') ?? []) {
      const [, name, driver] = line.split('\t');
      if (!name || name.endsWith('.monitor')) continue;
      devices.push({ kind, name, description: `${driver ?? ''} (PulseAudio/PipeWire)`.trim(), system: 'pulse' });
    }
  }
  return devices;
}

export function listDevices(): AudioDevice[] {
  return [...alsaDevices('capture'), ...alsaDevices('playback'), ...pulseDevices()];
}
