import { LIMITS } from '../contract/limits.js';

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
}

/**
 * The same cuts as `splitAtQuietPoints`, made while 16-bit PCM arrives (from a decoder, say):
 * at most one chunk's worth (plus what is in flight) is held, however long the audio is.
 */
export async function* cutAsItArrives(
  pcm: AsyncIterable<Buffer> | Iterable<Buffer>,
  sampleRateHz: number,
  maxMs = MAX_CHUNK_MS,
): AsyncGenerator<AudioChunk> {
  const maxBytes = Math.floor((maxMs / 1000) * sampleRateHz) * 2;
  let pieces: Buffer[] = [];
  let held = 0;
  let startSample = 0;
  try {
    for await (const piece of pcm) {
      pieces.push(piece);
      held += piece.length;
      while (held > maxBytes + 1) {
        const all = pieces.length === 1 ? (pieces[0] as Buffer) : Buffer.concat(pieces);
        const window = samplesIn(all.subarray(0, maxBytes));
        const cut = quietestCut(window, sampleRateHz, maxMs / 2, maxMs);
        yield { startSample, samples: window.slice(0, cut) };
        startSample += cut;
        const rest = Buffer.from(all.subarray(cut * 2));
        pieces = [rest];
        held = rest.length;
      }
    }
  } catch (error) {
    // The source broke off: what it did deliver is still a chunk worth having.
    const aborted = error instanceof Error && error.name === 'AbortError';
    if (held >= 2 && !aborted) yield { startSample, samples: samplesIn(Buffer.concat(pieces)).slice() };
    throw error;
  }
  if (held >= 2) yield { startSample, samples: samplesIn(Buffer.concat(pieces)).slice() };
}

/** The whole samples in `bytes` (a trailing odd byte is left out), as a view that may share memory. */
function samplesIn(bytes: Buffer): Int16Array {
  const even = bytes.subarray(0, bytes.length - (bytes.length % 2));
  const aligned = even.byteOffset % 2 === 0 ? even : Buffer.from(even);
  return new Int16Array(aligned.buffer, aligned.byteOffset, aligned.length / 2);
}
