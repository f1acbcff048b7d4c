/** node-record-lpcm16 recorder definition for sox, reading 20 ms at a time (its default is 8192 bytes, 256 ms). */
interface RecorderOptions {
  sampleRate: number;
  channels: number;
  audioType: string;
  device?: string;
}

export = (options: RecorderOptions) => {
  const bytes = Math.round((options.sampleRate * options.channels * 2) / 50);
  const args = [
    '--default-device',
    '--no-show-progress',
    '--buffer',
    String(bytes),
    '--rate',
    String(options.sampleRate),
    '--channels',
    String(options.channels),
    '--encoding',
    'signed-integer',
    '--bits',
    '16',
    '--type',
    options.audioType,
    '-',
  ];
  // sox's PulseAudio driver otherwise asks for ~2 s fragments: nothing arrives for seconds.
  const env = { ...process.env, PULSE_LATENCY_MSEC: '20', ...(options.device ? { AUDIODEV: options.device } : {}) };
  const spawnOptions = { env };
  return { cmd: 'sox', args, spawnOptions };
};
