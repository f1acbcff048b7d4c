import { mkdtemp, open, rm, type FileHandle } from 'node:fs/promises';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { abortError } from '../system/abort.js';
import { spawnChild } from '../system/spawn.js';
import { ffmpegPath } from './ffmpeg.js';
import { readWavHead } from './wav-head.js';
import { isPcm16Mono } from './wav-header.js';

const READ_BYTES = 64 * 1024;

/**
 * Any audio file ffmpeg reads, decoded as it is read: 16-bit mono PCM at `sampleRateHz`, in
 * pieces that are views into one reused buffer, each good until the next is asked for. ffmpeg
 * waits while the consumer is busy, so memory does not grow with the file's length.
 *
 * Why not ffmpeg's stdout as a stream: every read of a pipe makes a new buffer, garbage as soon
 * as it is copied, and V8 frees such buffers only at its next GC, after some 30 MB have piled
 * up. ffmpeg writes to one end of a local socket pair instead, and hark reads the other end
 * into its own buffer (`onread`). A decoder that fails throws with ffmpeg's last words. A 16-bit
 * mono WAV at `sampleRateHz` is read as it is, without ffmpeg (whose decoding a small board pays for).
 */
export async function* decodeStream(path: string, sampleRateHz: number, signal?: AbortSignal): AsyncGenerator<Buffer> {
  const wav = await openPcmWav(path, sampleRateHz);
  if (wav) {
    yield* readPieces(wav, signal);
    return;
  }
  const dir = await mkdtemp(join(tmpdir(), 'hark-decode-'));
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  let ready: Buffer | undefined;
  let ended = false;
  let broken: Error | undefined;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  const { reader, writer } = await socketPair(
    join(dir, 'pcm'),
    (bytes) => {
      ready = buffer.subarray(0, bytes);
      notify();
      // Paused until the consumer has taken this piece: the buffer is then free for the next.
      return false;
    },
    buffer,
  );
  reader.on('end', () => {
    ended = true;
    notify();
  });
  reader.on('error', (error) => {
    broken = error;
    notify();
  });
  const args = ['-i', path, '-f', 's16le', '-acodec', 'pcm_s16le', '-ac', '1', '-ar', String(sampleRateHz), 'pipe:1'];
  const child = spawnChild(ffmpegPath(), ['-hide_banner', '-loglevel', 'error', '-nostdin', ...args], {
    stdio: ['ignore', writer, 'pipe'],
  });
  // The child has its own copy of the writing end; hark's goes, so the reader sees the end when ffmpeg exits.
  writer.destroy();
  let err = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-2000);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  exited.catch(() => undefined);
  const onAbort = (): void => void child.kill('SIGKILL');
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) throw abortError(signal.reason);
      if (ready) {
        const piece = ready;
        ready = undefined;
        yield piece;
        reader.resume();
        continue;
      }
      if (broken) throw broken;
      if (ended) break;
      await new Promise<void>((resolve) => (wake = resolve));
    }
    const code = await exited;
    if (signal?.aborted) throw abortError(signal.reason);
    if (code !== 0) {
      throw new Error(`ffmpeg failed (exit ${code}): ${err.trim().split('\n').slice(-3).join(' | ') || 'no message'}`);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    reader.destroy();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Two connected local sockets: `writer` to hand to a child, `reader` reading into `buffer`. */
function socketPair(
  path: string,
  onData: (bytes: number) => boolean,
  buffer: Buffer,
): Promise<{ reader: Socket; writer: Socket }> {
  return new Promise((resolve, reject) => {
    let reader: Socket | undefined;
    const server = createServer((writer) => {
      server.close();
      if (reader) resolve({ reader, writer });
    });
    server.once('error', reject);
    server.listen(path, () => {
      reader = connect({ path, onread: { buffer, callback: onData } });
      reader.once('error', reject);
    });
  });
}

interface PcmWav {
  file: FileHandle;
  dataOffset: number;
  dataBytes: number;
}

/** The file open at its samples when it is a 16-bit mono PCM WAV at `sampleRateHz`; else undefined. */
async function openPcmWav(path: string, sampleRateHz: number): Promise<PcmWav | undefined> {
  const file = await open(path).catch(() => undefined);
  if (!file) return undefined;
  try {
    const info = await readWavHead(file);
    if (isPcm16Mono(info) && info.sampleRateHz === sampleRateHz)
      return { file, dataOffset: info.dataOffset, dataBytes: info.dataBytes - (info.dataBytes % 2) };
  } catch {
    // Not a WAV, or one whose header this cannot read: ffmpeg's to try.
  }
  await file.close();
  return undefined;
}

/** The samples in pieces that are views into one reused buffer, as ffmpeg's are. */
async function* readPieces({ file, dataOffset, dataBytes }: PcmWav, signal?: AbortSignal): AsyncGenerator<Buffer> {
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  try {
    for (let done = 0; done < dataBytes;) {
      if (signal?.aborted) throw abortError(signal.reason);
      const { bytesRead } = await file.read(buffer, 0, Math.min(READ_BYTES, dataBytes - done), dataOffset + done);
      if (bytesRead === 0) break;
      done += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}
