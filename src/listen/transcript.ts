import { LIMITS } from '../contract/limits.js';

const CJK = /[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]/u;

/**
 * The end of the previous transcript, short enough for the transcription `prompt` (the
 * service recommends under 60 characters), starting at a word boundary where there is one.
 */
export function promptTail(text: string, maxChars = LIMITS.transcription.promptRecommendedMaxChars - 1): string {
  const clean = text.trim().replace(/\s+/g, ' ');
  const chars = [...clean];
  if (chars.length <= maxChars) return clean;
  const tail = chars.slice(-maxChars).join('');
  const space = tail.indexOf(' ');
  return (space > 0 && space < tail.length - 1 && !CJK.test(tail) ? tail.slice(space + 1) : tail).trim();
}

/** Joins transcripts of consecutive chunks: a space between words, none between CJK characters. */
export function joinTranscripts(parts: readonly string[]): string {
  let out = '';
  for (const raw of parts) {
    const part = raw.trim();
    if (!part) continue;
    const noSpace = out === '' || (CJK.test(out.at(-1) ?? '') && CJK.test(part[0] ?? ''));
    out += noSpace ? part : ` ${part}`;
  }
  return out;
}
