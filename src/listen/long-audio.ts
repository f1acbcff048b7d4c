import { LIMITS } from '../contract/limits.js';
import { wavHeader } from '../audio/wav-header.js';

/** A chunk's ceiling, a little under the service's 30 s so header rounding can never cross it. */
export const MAX_CHUNK_MS = LIMITS.transcription.fileMaxDurationMs - 200;

const FRAME_MS = 20;

/**
 * The sample index at the middle of the quietest `windowMs` stretch between `fromMs` and
 * `toMs`: where a long monologue is cut so that no word is split if it can be helped.
 */
export function quietestCut(
  samples: Int16Array,
  sampleRateHz: number,
  fromMs: number,
  toMs: number,
  windowMs = 200,
): number {
  const frame = Math.max(1, Math.round((sampleRateHz * FRAME_MS) / 1000));
  const firstFrame = Math.floor(fromMs / FRAME_MS);
  const lastFrame = Math.min(Math.floor(toMs / FRAME_MS), Math.floor(samples.length / frame));
  const span = Math.max(1, Math.round(windowMs / FRAME_MS));
  if (lastFrame - firstFrame < span) return Math.min(samples.length, Math.round((toMs / 1000) * sampleRateHz));
  const energy = new Float64Array(lastFrame - firstFrame);
  for (let f = 0; f < energy.length; f++) {
    let sum = 0;
    const start = (firstFrame + f) * frame;
    for (let i = start; i < start + frame; i++) {
      const v = samples[i] as number;
      sum += v * v;
    }
    energy[f] = sum;
  }
  let window = 0;
  for (let f = 0; f < span; f++) window += energy[f] as number;
  let best = window;
  let bestStart = 0;
  for (let f = span; f < energy.length; f++) {
    window += (energy[f] as number) - (energy[f - span] as number);
    // Prefer the later of equally quiet stretches: longer chunks, fewer requests.
    if (window <= best) {
      best = window;
      bestStart = f - span + 1;
    }
  }
  return (firstFrame + bestStart + Math.floor(span / 2)) * frame;
}

/** Cuts audio into chunks of at most `maxMs`, each ending at the quietest point of its second half. */
export function splitAtQuietPoints(samples: Int16Array, sampleRateHz: number, maxMs = MAX_CHUNK_MS): Int16Array[] {
  const maxSamples = Math.floor((maxMs / 1000) * sampleRateHz);
  const chunks: Int16Array[] = [];
  let rest = samples;
  while (rest.length > maxSamples) {
    const cut = quietestCut(rest, sampleRateHz, maxMs / 2, maxMs);
    chunks.push(rest.subarray(0, cut));
    rest = rest.subarray(cut);
  }
  if (rest.length > 0) chunks.push(rest);
  return chunks;
}

/** A piece of long audio, and where it starts in the whole. */
export interface AudioChunk {
  startSample: number;
  samples: Int16Array;
  /** The chunk as a WAV file, when the cutter made one without copying the samples. */
  wav?: Buffer;
}

const WAV_HEADER_BYTES = 44;

/**
 * The same cuts as `splitAtQuietPoints`, made while 16-bit PCM arrives (from a decoder, say).
 * One buffer of a chunk's size is reused for the whole recording, so memory does not grow with
 * its length: a chunk's `samples` and `wav` are views into it, good until the next chunk is
 * asked for. What a source that breaks off did deliver still comes out as a last chunk.
 */
export async function* cutAsItArrives(
  pcm: AsyncIterable<Buffer> | Iterable<Buffer>,
  sampleRateHz: number,
  maxMs = MAX_CHUNK_MS,
): AsyncGenerator<AudioChunk> {
  const maxBytes = Math.floor((maxMs / 1000) * sampleRateHz) * 2;
  // Room for the WAV header in front, and one sample more than a chunk: a cut needs to know there is more.
  const store = Buffer.alloc(WAV_HEADER_BYTES + maxBytes + 2);
  let held = 0;
  let startSample = 0;
  const chunk = (bytes: number): AudioChunk => {
    wavHeader(bytes, sampleRateHz).copy(store, 0);
    const samples = new Int16Array(store.buffer, store.byteOffset + WAV_HEADER_BYTES, bytes / 2);
    return { startSample, samples, wav: store.subarray(0, WAV_HEADER_BYTES + bytes) };
  };
  try {
    for await (const piece of pcm) {
      for (let at = 0; at < piece.length;) {
        const take = Math.min(piece.length - at, store.length - WAV_HEADER_BYTES - held);
        piece.copy(store, WAV_HEADER_BYTES + held, at, at + take);
        held += take;
        at += take;
        if (held <= maxBytes + 1) continue;
        const window = new Int16Array(store.buffer, store.byteOffset + WAV_HEADER_BYTES, maxBytes / 2);
        const cut = quietestCut(window, sampleRateHz, maxMs / 2, maxMs);
        yield chunk(cut * 2);
        startSample += cut;
        store.copyWithin(WAV_HEADER_BYTES, WAV_HEADER_BYTES + cut * 2, WAV_HEADER_BYTES + held);
        held -= cut * 2;
      }
    }
  } catch (error) {
    const aborted = error instanceof Error && error.name === 'AbortError';
    if (held >= 2 && !aborted) yield chunk(held - (held % 2));
    throw error;
  }
  if (held >= 2) yield chunk(held - (held % 2));
}
