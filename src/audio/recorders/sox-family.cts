/** What node-record-lpcm16 hands a recorder definition. */
interface RecorderOptions {
  sampleRate: number;
  channels: number;
  audioType: string;
  device?: string;
  /** The child's whole environment, from hark's allow-list. */
  env: Record<string, string>;
}

/**
 * sox and rec (sox's recording front end, which takes the same options) reading 20 ms at a
 * time (sox's default is 8192 bytes, 256 ms). Their PulseAudio driver otherwise asks for ~2 s
 * fragments, and nothing arrives for seconds: PULSE_LATENCY_MSEC asks for 20 ms.
 */
function soxFamily(cmd: 'sox' | 'rec', options: RecorderOptions) {
  const bytes = Math.round((options.sampleRate * options.channels * 2) / 50);
  const args = [
    ...(cmd === 'sox' ? ['--default-device'] : []),
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
  const env = { ...options.env, PULSE_LATENCY_MSEC: '20', ...(options.device ? { AUDIODEV: options.device } : {}) };
  return { cmd, args, spawnOptions: { env } };
}

declare namespace soxFamily {
  export type Options = RecorderOptions;
}

export = soxFamily;
