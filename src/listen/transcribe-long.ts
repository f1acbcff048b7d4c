import { pcmToWav } from '../audio/wav-header.js';
import { splitAtQuietPoints } from './long-audio.js';
import { joinTranscripts, promptTail } from './transcript.js';

/** Transcribes one WAV file; `prompt` carries the previous chunk's tail. */
export type TranscribeWav = (wav: Buffer, prompt: string | undefined, signal?: AbortSignal) => Promise<string>;

/**
 * Transcribes audio of any length: chunks of at most 30 s cut at quiet points, each sent
 * with the tail of what came before as `prompt`, joined into one text.
 */
export async function transcribeLong(
  samples: Int16Array,
  sampleRateHz: number,
  transcribe: TranscribeWav,
  signal?: AbortSignal,
): Promise<{ text: string; parts: string[] }> {
  const parts: string[] = [];
  for (const chunk of splitAtQuietPoints(samples, sampleRateHz)) {
    const previous = joinTranscripts(parts);
    parts.push(await transcribe(pcmToWav(chunk, sampleRateHz), previous ? promptTail(previous) : undefined, signal));
  }
  return { text: joinTranscripts(parts), parts };
}
