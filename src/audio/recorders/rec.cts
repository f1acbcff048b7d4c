/** node-record-lpcm16 recorder definition for rec (sox's recording front end), reading 20 ms at a time. */
interface RecorderOptions {
  sampleRate: number;
  channels: number;
  audioType: string;
  device?: string;
}

export = (options: RecorderOptions) => {
  const bytes = Math.round((options.sampleRate * options.channels * 2) / 50);
  const args = [
    '-q',
    '--buffer',
    String(bytes),
    '-r',
    String(options.sampleRate),
    '-c',
    String(options.channels),
    '-e',
    'signed-integer',
    '-b',
    '16',
    '-t',
    options.audioType,
    '-',
  ];
  // sox's PulseAudio driver otherwise asks for ~2 s fragments: nothing arrives for seconds.
  const env = { ...process.env, PULSE_LATENCY_MSEC: '20', ...(options.device ? { AUDIODEV: options.device } : {}) };
  const spawnOptions = { env };
  return { cmd: 'rec', args, spawnOptions };
};
