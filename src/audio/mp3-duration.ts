/** Duration of an MP3 file from its frame headers (no decoding), for the transcription limits. */

const BITRATES_KBPS: Record<string, readonly number[]> = {
  '1-1': [0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448],
  '1-2': [0, 32, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320, 384],
  '1-3': [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  '2-1': [0, 32, 48, 56, 64, 80, 96, 112, 128, 144, 160, 176, 192, 224, 256],
  '2-2': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
  '2-3': [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const SAMPLE_RATES_HZ: Record<number, readonly number[]> = {
  3: [44100, 48000, 32000],
  2: [22050, 24000, 16000],
  0: [11025, 12000, 8000],
};

interface Frame {
  bytes: number;
  samples: number;
  sampleRateHz: number;
}

function readFrame(buf: Uint8Array, at: number): Frame | undefined {
  if (at + 4 > buf.length) return undefined;
  const b1 = buf[at + 1] as number;
  const b2 = buf[at + 2] as number;
  if (buf[at] !== 0xff || (b1 & 0xe0) !== 0xe0) return undefined;
  const versionBits = (b1 >> 3) & 3;
  const layerBits = (b1 >> 1) & 3;
  if (versionBits === 1 || layerBits === 0) return undefined;
  const layer = 4 - layerBits;
  const mpeg1 = versionBits === 3;
  const bitrate = BITRATES_KBPS[`${mpeg1 ? 1 : 2}-${layer}`]?.[(b2 >> 4) & 15];
  const sampleRateHz = SAMPLE_RATES_HZ[versionBits]?.[(b2 >> 2) & 3];
  if (!bitrate || !sampleRateHz) return undefined;
  const padding = (b2 >> 1) & 1;
  if (layer === 1) {
    return { bytes: (Math.floor((12 * bitrate * 1000) / sampleRateHz) + padding) * 4, samples: 384, sampleRateHz };
  }
  const samples = layer === 3 && !mpeg1 ? 576 : 1152;
  return { bytes: Math.floor(((samples / 8) * bitrate * 1000) / sampleRateHz) + padding, samples, sampleRateHz };
}

function id3v2Length(buf: Uint8Array): number {
  if (buf.length < 10 || buf[0] !== 0x49 || buf[1] !== 0x44 || buf[2] !== 0x33) return 0;
  const size =
    (((buf[6] as number) & 0x7f) << 21) |
    (((buf[7] as number) & 0x7f) << 14) |
    (((buf[8] as number) & 0x7f) << 7) |
    ((buf[9] as number) & 0x7f);
  return 10 + size + (((buf[5] as number) & 0x10) !== 0 ? 10 : 0);
}

/** Milliseconds of audio, or undefined when no run of valid MPEG audio frames is found. */
export function mp3DurationMs(buf: Uint8Array): number | undefined {
  let at = id3v2Length(buf);
  // Find the first frame that is followed by another valid frame (guards against false syncs).
  for (; at < buf.length - 4; at++) {
    const frame = readFrame(buf, at);
    if (frame && (at + frame.bytes >= buf.length || readFrame(buf, at + frame.bytes))) break;
  }
  let seconds = 0;
  let frames = 0;
  while (at < buf.length) {
    const frame = readFrame(buf, at);
    if (!frame) break;
    seconds += frame.samples / frame.sampleRateHz;
    frames++;
    at += frame.bytes;
  }
  return frames === 0 ? undefined : seconds * 1000;
}
