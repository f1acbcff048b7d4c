import type { Sentence } from './sentences.js';

/** A sentence as placed on the playback timeline: samples [startSample, endSample). */
export interface PlacedSentence {
  text: string;
  startSample: number;
  endSample: number;
}

/** Where a sentence's audio sits on the player's timeline; `final` once all of it is written. */
export interface Placement {
  sentence: Sentence;
  startSample: number;
  endSample: number;
  final: boolean;
}

/**
 * The part of a reply the user heard by the time playback reached `playedSample`: whole
 * sentences played through, plus the heard share of the one cut off, ending at a word.
 */
export function heardText(
  sentences: readonly PlacedSentence[],
  playedSample: number,
): { text: string; complete: boolean } {
  const parts: string[] = [];
  for (const sentence of sentences) {
    if (playedSample >= sentence.endSample) {
      parts.push(sentence.text);
      continue;
    }
    if (playedSample > sentence.startSample) {
      const share = (playedSample - sentence.startSample) / (sentence.endSample - sentence.startSample);
      const partial = cutAtWord(sentence.text, share);
      if (partial) parts.push(partial);
    }
    return { text: parts.join(' '), complete: false };
  }
  return { text: parts.join(' '), complete: true };
}

function cutAtWord(text: string, share: number): string {
  const chars = [...text];
  const at = Math.floor(chars.length * share);
  if (at <= 0) return '';
  const head = chars.slice(0, at).join('');
  if (!/\s/.test(head)) return /[\u3400-\u9fff]/u.test(head) ? head : '';
  const nextIsBoundary = /\s/.test(chars[at] ?? ' ');
  return nextIsBoundary ? head.trimEnd() : head.slice(0, head.search(/\s\S*$/)).trimEnd();
}
