import type { Command } from 'commander';
import { listDevices } from '../audio/devices.js';

export function registerDevices(program: Command): void {
  program
    .command('devices')
    .description('list capture and playback devices, with the names to put in the config')
    .action(() => {
      const devices = listDevices();
      if (devices.length === 0) {
        process.stdout.write(
          'no capture or playback devices found (is a USB mic/speaker plugged in? `arecord -l`, `aplay -l`)\n',
        );
        process.exitCode = 1;
        return;
      }
      for (const kind of ['capture', 'playback'] as const) {
        const option = kind === 'capture' ? 'audio.captureDevice' : 'audio.playbackDevice';
        process.stdout.write(`${kind} devices (set ${option}):\n`);
        for (const d of devices.filter((x) => x.kind === kind)) {
          process.stdout.write(`  ${d.name.padEnd(40)} ${d.description} [${d.system}]\n`);
        }
      }
      process.stdout.write(
        '\nALSA names (plughw:...) play through aplay and record through arecord. Sink names (pipewire,\n' +
          'pulse) play through pw-play or pacat (audio.player: auto); source names record through\n' +
          'audio.recorder: sox with its PulseAudio driver (libsox-fmt-pulse). A system service reaches only ALSA names.\n',
      );
    });
}
