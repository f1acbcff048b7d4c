import { runChild } from '../system/spawn.js';

export interface AudioDevice {
  kind: 'capture' | 'playback';
  /** What to put in audio.captureDevice / audio.playbackDevice. */
  name: string;
  description: string;
  system: 'alsa' | 'pulse' | 'pipewire';
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

/**
 * Sinks and sources from `pactl list sinks|sources` (PulseAudio, or PipeWire's pulse service, which
 * then says so in `pactl info`), by name with their description; monitors of sinks left out.
 */
export function pulseDevices(
  listings: { sinks?: string; sources?: string; info?: string } = {
    sinks: run('pactl', ['list', 'sinks']),
    sources: run('pactl', ['list', 'sources']),
    info: run('pactl', ['info']),
  },
): AudioDevice[] {
  const system = /on PipeWire/i.test(listings.info ?? '') ? 'pipewire' : 'pulse';
  const devices: AudioDevice[] = [];
  for (const [kind, listing] of [
    ['playback', listings.sinks],
    ['capture', listings.sources],
  ] as const) {
    for (const block of (listing ?? '').split(/\n(?=(?:Sink|Source) #\d+)/)) {
      const name = /^\s*Name: (.+)$/m.exec(block)?.[1]?.trim();
      if (!name || name.endsWith('.monitor')) continue;
      const description = /^\s*Description: (.+)$/m.exec(block)?.[1]?.trim() ?? '';
      devices.push({ kind, name, description, system });
    }
  }
  return devices;
}

interface PwObject {
  type?: string;
  info?: { props?: Record<string, unknown> };
}

/** Audio sinks and sources of a PipeWire without its pulse service, from `pw-dump` (JSON). */
export function pipewireDevices(dump = run('pw-dump', [])): AudioDevice[] {
  if (!dump) return [];
  let objects: PwObject[];
  try {
    objects = JSON.parse(dump) as PwObject[];
  } catch {
    return [];
  }
  const devices: AudioDevice[] = [];
  for (const object of Array.isArray(objects) ? objects : []) {
    const props = object.info?.props ?? {};
    const mediaClass = props['media.class'];
    const kind = mediaClass === 'Audio/Sink' ? 'playback' : mediaClass === 'Audio/Source' ? 'capture' : undefined;
    const name = props['node.name'];
    if (object.type !== 'PipeWire:Interface:Node' || !kind || typeof name !== 'string') continue;
    const description = props['node.description'];
    devices.push({ kind, name, description: typeof description === 'string' ? description : '', system: 'pipewire' });
  }
  return devices;
}

/** The sound server's devices: through pactl when a pulse server answers, else PipeWire's own dump. */
export function serverDevices(): AudioDevice[] {
  const fromPulse = pulseDevices();
  return fromPulse.length ? fromPulse : pipewireDevices();
}

export function listDevices(): AudioDevice[] {
  return [...alsaDevices('capture'), ...alsaDevices('playback'), ...serverDevices()];
}
