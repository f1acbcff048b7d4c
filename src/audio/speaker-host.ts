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
const Speaker = createRequire(import.meta.url)('speaker') as SpeakerClass;

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
