/**
 * node-record-lpcm16 recorder definition for arecord, with 20 ms periods: by default arecord
 * hands over audio every 125-250 ms, which delays end-of-speech and barge-in by as much.
 */
import type soxFamily = require('./sox-family.cjs');

export = (options: soxFamily.Options) => {
  const args = [
    '-q',
    '-r',
    String(options.sampleRate),
    '-c',
    String(options.channels),
    '-t',
    options.audioType,
    '-f',
    'S16_LE',
    '--period-time=20000',
    '--buffer-time=200000',
    '-',
  ];
  if (options.device) args.unshift('-D', options.device);
  return { cmd: 'arecord', args, spawnOptions: { env: options.env } };
};
