import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import wav from 'wav';
import { writeAtomically } from '../system/atomic-file.js';

/**
 * A 16-bit mono WAV file written as PCM arrives. The `wav` package's Writer makes the header
 * (first with an open length, which players read as "to the end of the file", so a file cut
 * short by a crash still plays) and, when it ends, the final header with the real length,
 * which is written over the first once the file is complete. (Its FileWriter does that
 * rewrite without waiting for the file stream: an early close can race its first write.)
 */
export class WavFileWriter {
  private readonly writer: wav.Writer;
  private readonly file: WriteStream;
  private readonly failed: Promise<never>;
  private closed: Promise<void> | undefined;

  constructor(
    readonly path: string,
    sampleRateHz: number,
  ) {
    this.writer = new wav.Writer({ channels: 1, sampleRate: sampleRateHz, bitDepth: 16 });
    this.file = createWriteStream(path);
    this.failed = new Promise((_, reject) => {
      this.writer.once('error', reject);
      this.file.once('error', reject);
    });
    this.failed.catch(() => undefined);
    this.writer.pipe(this.file);
  }

  write(pcm: Buffer): void {
    if (!this.closed && pcm.length > 0) this.writer.write(pcm);
  }

  /** Ends the file and waits until it is on disk with the real length in its header. */
  close(): Promise<void> {
    this.closed ??= (async () => {
      const header = once(this.writer, 'header') as Promise<[Buffer]>;
      const written = once(this.file, 'close');
      this.writer.end();
      const [[final]] = await Promise.race([Promise.all([header, written]), this.failed]);
      const handle = await open(this.path, 'r+');
      try {
        await handle.write(final, 0, final.length, 0);
      } finally {
        await handle.close();
      }
    })();
    return this.closed;
  }
}

/**
 * Writes PCM chunks as they come (e.g. a speech stream) into a WAV file, which appears under its
 * name only when complete: a stream that fails leaves no file, not a short one. Resolves with
 * the PCM bytes written.
 */
export function writeWavFile(path: string, sampleRateHz: number, chunks: AsyncIterable<Buffer>): Promise<number> {
  return writeAtomically(path, async (partial) => {
    const file = new WavFileWriter(partial, sampleRateHz);
    let bytes = 0;
    try {
      for await (const pcm of chunks) {
        file.write(pcm);
        bytes += pcm.length;
      }
    } finally {
      await file.close();
    }
    return bytes;
  });
}
