const CJK = /[\u3400-\u9fff]/u;

/** Words as speech recognition would give them back: folded, letters and digits only; CJK characters one each. */
function words(text: string): string[] {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .flatMap((word) => (CJK.test(word) ? [...word] : word ? [word] : []));
}

function commonSubsequence(a: readonly string[], b: readonly string[]): number {
  const row = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    let diagonal = 0;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      row[j] = x === b[j - 1] ? diagonal + 1 : Math.max(above, row[j - 1] as number);
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** Share of a transcript's words that hark itself said, in order, above which it is hark's own voice heard back. */
const OWN_VOICE_SHARE = 0.6;

/** Whether a transcript is mostly words hark itself just said, in the same order: its own voice heard back. */
export function soundsLikeOwnVoice(transcript: string, said: readonly string[]): boolean {
  const heard = words(transcript);
  if (heard.length === 0 || said.length === 0) return false;
  return commonSubsequence(heard, words(said.join(' '))) / heard.length >= OWN_VOICE_SHARE;
}
