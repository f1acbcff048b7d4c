import { bufferOf } from './pcm.js';

/**
 * hark's WAV reading, and its in-memory WAV writing. Files are written with the `wav` package
 * (audio/wav-file.ts). Reading stays here because `wav`'s Reader cannot serve it: it stops with
 * an error when any chunk comes before `fmt ` (JUNK, bext), loses every sample after an
 * odd-sized chunk (it skips no pad byte; a 5-byte LIST chunk gave 0 bytes of audio and no
 * error), and reports WAVE_FORMAT_EXTENSIBLE without its subformat, so float reads as PCM. The
 * parser is also synchronous and pure, which the request checks in contract/ and the utterance
 * WAVs of the pipeline need; `wav` is a stream.
 */
export interface WavInfo {
  /** 1 = integer PCM, 3 = float; WAVE_FORMAT_EXTENSIBLE is resolved to its subformat. */
  audioFormat: number;
  /** The fmt chunk said WAVE_FORMAT_EXTENSIBLE (0xfffe). */
  extensible: boolean;
  channels: number;
  sampleRateHz: number;
  bitsPerSample: number;
  /** Offset of the first sample byte. */
  dataOffset: number;
  dataBytes: number;
  durationMs: number;
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

export function isWav(bytes: Uint8Array): boolean {
  return bytes.length >= 12 && ascii(bytes, 0, 4) === 'RIFF' && ascii(bytes, 8, 12) === 'WAVE';
}

/**
 * Parses the RIFF chunks in any order (padding odd sizes); throws a readable error for anything
 * that is not a usable WAV. `totalBytes`: the whole file's length when `bytes` is its start.
 */
export function readWavInfo(bytes: Uint8Array, totalBytes = bytes.length): WavInfo {
  if (!isWav(bytes)) throw new Error('not a WAV file (no RIFF/WAVE header)');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let offset = 12;
  let fmt: Omit<WavInfo, 'dataOffset' | 'dataBytes' | 'durationMs'> | undefined;
  while (offset + 8 <= bytes.length) {
    const id = ascii(bytes, offset, offset + 4);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > bytes.length) throw new Error('WAV fmt chunk is truncated');
      const tag = view.getUint16(body, true);
      const extensible = tag === WAVE_FORMAT_EXTENSIBLE;
      // WAVEFORMATEXTENSIBLE: the real format is the first two bytes of the SubFormat GUID at +24.
      if (extensible && (size < 40 || body + 26 > bytes.length))
        throw new Error('WAV extensible fmt chunk is truncated');
      fmt = {
        audioFormat: extensible ? view.getUint16(body + 24, true) : tag,
        extensible,
        channels: view.getUint16(body + 2, true),
        sampleRateHz: view.getUint32(body + 4, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (!fmt) throw new Error('WAV data chunk comes before its fmt chunk');
      // Streamed WAVs (ffmpeg to a pipe) leave the size as 0 or 0xffffffff: trust the file length.
      const available = totalBytes - body;
      const dataBytes = size === 0 || size === 0xffffffff || size > available ? available : size;
      const bytesPerSecond = fmt.sampleRateHz * fmt.channels * (fmt.bitsPerSample / 8);
      if (bytesPerSecond <= 0) throw new Error('WAV header gives no sample rate or sample size');
      return { ...fmt, dataOffset: body, dataBytes, durationMs: (dataBytes / bytesPerSecond) * 1000 };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}

/** A WAV's length in ms, or undefined for bytes that are no usable WAV (see readWavInfo for `totalBytes`). */
export function wavDurationMs(bytes: Uint8Array, totalBytes = bytes.length): number | undefined {
  try {
    return readWavInfo(bytes, totalBytes).durationMs;
  } catch {
    return undefined;
  }
}

/** 16-bit integer PCM, one channel: what hark's audio path takes as it is. */
export function isPcm16Mono(info: WavInfo): boolean {
  return info.audioFormat === WAVE_FORMAT_PCM && info.bitsPerSample === 16 && info.channels === 1;
}

/** The samples of a 16-bit integer PCM mono WAV (hark's own format); anything else is refused with what it is. */
export function readPcm16Mono(bytes: Uint8Array): { pcm: Buffer; sampleRateHz: number } {
  const info = readWavInfo(bytes);
  if (!isPcm16Mono(info)) {
    const kind =
      info.audioFormat === 3
        ? 'float'
        : info.audioFormat === WAVE_FORMAT_PCM
          ? 'integer'
          : `format ${info.audioFormat}`;
    throw new Error(
      `must be 16-bit integer PCM mono (it is ${info.bitsPerSample}-bit ${kind}, ${info.channels} channel(s))`,
    );
  }
  const pcm = Buffer.from(bytes.buffer, bytes.byteOffset + info.dataOffset, info.dataBytes - (info.dataBytes % 2));
  return { pcm, sampleRateHz: info.sampleRateHz };
}

/** The length of the header wavHeader makes; its data size is at byte 40. */
export const WAV_HEADER_BYTES = 44;

/**
 * A 44-byte header for 16-bit little-endian PCM, for WAVs built in memory (an utterance for
 * transcription, a reference clip for a data URL): synchronous, where `wav`'s Writer is a stream.
 */
export function wavHeader(dataBytes: number, sampleRateHz: number, channels = 1, bitsPerSample = 16): Buffer {
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  const blockAlign = channels * (bitsPerSample / 8);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRateHz, 24);
  header.writeUInt32LE(sampleRateHz * blockAlign, 28);
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

function ascii(bytes: Uint8Array, start: number, end: number): string {
  return String.fromCharCode(...bytes.subarray(start, end));
}

/** 16-bit mono samples as a complete WAV file, in memory. */
export function pcmToWav(samples: Int16Array, sampleRateHz: number): Buffer {
  const pcm = bufferOf(samples);
  return Buffer.concat([wavHeader(pcm.length, sampleRateHz), pcm]);
}
