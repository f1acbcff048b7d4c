/**
 * Runs in its own process: `speaker` opens ALSA while it loads and aborts the whole process
 * when no device is usable, which must never take the daemon down. PCM arrives on stdin in
 * frames [epoch u32][length u32][bytes]; a `stop` message bumps the epoch, so audio already
 * in the pipe from before the stop is skipped, and throws away what the module was not given yet.
 */
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';

type SpeakerModule = Writable & { close(flush: boolean): void };
type SpeakerClass = new (options: Record<string, unknown>) => SpeakerModule;

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

/**
 * The most the host hands `speaker` at once: 256 frames of 16-bit mono (11 ms at 24 kHz; the
 * module's own piece is 1024). Closing the module while a native write is under way makes it
 * use freed memory and crash the host, so a stop waits for the piece in flight and drops the
 * rest, which must therefore still be the host's to drop. With ALSA's buffer full a piece is
 * written only as room is made for it: the smaller it is, the sooner a stop silences hark.
 */
const PIECE_BYTES = 512;

type Output = { module: SpeakerModule; writing: boolean; retired: boolean };

let epoch = 0;
let output = open();
let queue: Buffer[] = [];
let pending: Buffer = Buffer.alloc(0);
let ending = false;

function open(): Output {
  const module = new Speaker({ channels: 1, bitDepth: 16, sampleRate, signed: true, ...(device ? { device } : {}) });
  module.on('error', (error: Error) => {
    if (output.module !== module) return;
    // A write the device refused leaves the module unusable: the player starts a new host.
    process.send?.({ type: 'error', message: error.message }, () => process.exit(1));
  });
  return { module, writing: false, retired: false };
}

function pump(): void {
  const current = output;
  if (current.writing) return;
  const piece = queue.shift();
  if (!piece) {
    if (ending) {
      current.module.on('close', () => process.exit(0));
      current.module.end();
    }
    return;
  }
  current.writing = true;
  current.module.write(piece, () => {
    current.writing = false;
    if (current.retired) current.module.close(true);
    else pump();
  });
}

process.stdin.on('data', (chunk: Buffer) => {
  pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
  while (pending.length >= 8) {
    const frameEpoch = pending.readUInt32LE(0);
    const length = pending.readUInt32LE(4);
    if (pending.length < 8 + length) break;
    const pcm = pending.subarray(8, 8 + length);
    pending = pending.subarray(8 + length);
    if (frameEpoch !== epoch) continue;
    for (let at = 0; at < pcm.length; at += PIECE_BYTES) queue.push(pcm.subarray(at, at + PIECE_BYTES));
  }
  pump();
});

process.on('message', (message: { type: string; epoch?: number }) => {
  if (message.type === 'stop' && typeof message.epoch === 'number') {
    epoch = message.epoch;
    queue = [];
    const old = output;
    output = open();
    if (old.writing) old.retired = true;
    else old.module.close(true);
  }
});

process.stdin.on('end', () => {
  ending = true;
  pump();
});
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
