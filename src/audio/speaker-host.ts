/**
 * Runs in its own process: `speaker` opens ALSA while it loads and aborts the whole process
 * when no device is usable, which must never take the daemon down. PCM arrives on stdin in
 * frames [epoch u32][length u32][bytes]; a `stop` message bumps the epoch, so audio already
 * in the pipe from before the stop is skipped.
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';

type SpeakerClass = new (options: Record<string, unknown>) => Writable & { close(flush: boolean): void };

const sampleRate = Number(process.argv[2] ?? 24000);
const device = process.argv[3] || undefined;
/** Exit status of a host whose `speaker` module cannot be loaded: no retry will help. */
const NO_MODULE = 3;

/** The module, or (when it cannot load) a promise that never settles while the parent is told why and the host exits. */
function loadSpeaker(): Promise<SpeakerClass> {
  try {
    // A test may name a stand-in module; hark itself always loads the installed `speaker`.
    return Promise.resolve(createRequire(import.meta.url)(process.argv[4] || 'speaker') as SpeakerClass);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'MODULE_NOT_FOUND'
        ? 'the speaker module is not installed'
        : `the speaker module does not load: ${(error as Error).message.split('\n')[0]}`;
    process.stderr.write(`${message}\n`);
    if (process.send) process.send({ type: 'unavailable', message }, () => process.exit(NO_MODULE));
    else process.exit(NO_MODULE);
    return new Promise(() => undefined);
  }
}

const Speaker = await loadSpeaker();

let epoch = 0;
let speaker = open();
let pending: Buffer = Buffer.alloc(0);

function open(): Writable & { close(flush: boolean): void } {
  const instance = new Speaker({ channels: 1, bitDepth: 16, sampleRate, signed: true, ...(device ? { device } : {}) });
  // After close(true) the write in flight reports an error: expected, not a failure.
  instance.on('error', (error: Error) => {
    if (instance === speaker) process.send?.({ type: 'error', message: error.message });
  });
  return instance;
}

process.stdin.on('data', (chunk: Buffer) => {
  pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
  while (pending.length >= 8) {
    const frameEpoch = pending.readUInt32LE(0);
    const length = pending.readUInt32LE(4);
    if (pending.length < 8 + length) break;
    const pcm = pending.subarray(8, 8 + length);
    pending = pending.subarray(8 + length);
    if (frameEpoch === epoch) speaker.write(pcm);
  }
});

process.on('message', (message: { type: string; epoch?: number }) => {
  if (message.type === 'stop' && typeof message.epoch === 'number') {
    epoch = message.epoch;
    const old = speaker;
    speaker = open();
    old.close(true);
  }
});

process.stdin.on('end', () => {
  speaker.end();
  speaker.on('close', () => process.exit(0));
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
