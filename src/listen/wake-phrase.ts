/**
 * Wake and stop phrases in transcripts, tolerant of what speech recognition does to them:
 * case, punctuation, spacing ("hey, Hark!", "heyhark") and small mishearings ("hey Mark").
 */

const CJK = /[\u3400-\u9fff]/u;

/** Letters and digits only, folded (NFKC, lower case), with where each came from in the original text. */
function normalize(text: string): { chars: string; origin: number[] } {
  let chars = '';
  const origin: number[] = [];
  let at = 0;
  for (const original of text) {
    for (const ch of original.normalize('NFKC').toLowerCase()) {
      if (/[\p{L}\p{N}]/u.test(ch)) {
        chars += ch;
        origin.push(at + original.length);
      }
    }
    at += original.length;
  }
  return { chars, origin };
}

export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** Edits allowed for a phrase of this many letters: a quarter of them, at least one. */
function tolerance(length: number): number {
  return Math.max(1, Math.round(length / 4));
}

export interface WakeMatch {
  phrase: string;
  /** The transcript with the wake phrase (and the punctuation after it) taken off. */
  rest: string;
}

/** The wake phrase a transcript begins with, if any, and what was said after it. */
export function matchWakePhrase(transcript: string, phrases: readonly string[]): WakeMatch | undefined {
  const text = normalize(transcript);
  let best: { phrase: string; end: number; distance: number } | undefined;
  for (const phrase of phrases) {
    const target = normalize(phrase).chars;
    if (!target) continue;
    const allowed = tolerance(target.length);
    for (
      let length = Math.max(1, target.length - allowed);
      length <= Math.min(text.chars.length, target.length + allowed);
      length++
    ) {
      const distance = editDistance(text.chars.slice(0, length), target);
      if (distance > allowed || (best && distance >= best.distance)) continue;
      const endInOriginal = text.origin[length - 1] as number;
      // "hey harkness" is not "hey hark": the match must end where a word ends.
      const next = transcript[endInOriginal] ?? ' ';
      if (/\p{L}/u.test(next) && !CJK.test(next)) continue;
      best = { phrase, end: endInOriginal, distance };
    }
  }
  if (!best) return undefined;
  const rest = transcript.slice(best.end).replace(/^[\s\p{P}]+/u, '');
  return { phrase: best.phrase, rest };
}

const FILLER = new Set(['please', 'ok', 'okay', 'hark', 'now', 'it', 'that', 'just', 'oh']);

/** Whether a transcript is, apart from fillers like "please", one of the stop phrases. */
export function isStopPhrase(transcript: string, phrases: readonly string[]): boolean {
  const words = transcript
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w && !FILLER.has(w));
  const said = words.join('');
  if (!said) return false;
  return phrases.some((phrase) => {
    const target = normalize(phrase).chars;
    return target.length > 0 && editDistance(said, target) <= (target.length >= 6 ? 1 : 0);
  });
}
