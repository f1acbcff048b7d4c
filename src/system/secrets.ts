/**
 * Every secret hark holds (the API key, a password in the service URL) is registered here, so
 * that log lines, error messages and printed output can be scrubbed of it wherever they come from.
 */
const secrets = new Set<string>();

const MIN_SECRET_LENGTH = 6;

export function registerSecret(value: string | undefined): void {
  if (!value || value.length < MIN_SECRET_LENGTH) return;
  secrets.add(value);
  // Text already serialised as JSON (a log line, the page's answers and events) holds a `"` or
  // `\` of the secret escaped: that form is scrubbed too.
  const escaped = JSON.stringify(value).slice(1, -1);
  if (escaped !== value) secrets.add(escaped);
}

export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret)) out = out.split(secret).join('***');
  }
  return out;
}

/**
 * At most `maxChars` of `text` for a message, scrubbed first: cutting first could split a
 * secret, and its first half would then pass the scrub.
 */
export function excerpt(text: string, maxChars: number): string {
  return redact(text).slice(0, maxChars);
}

export function maskSecret(value: string | undefined): string {
  if (!value) return '(not set)';
  return value.length <= 8 ? '***' : `${value.slice(0, 3)}***${value.slice(-2)}`;
}

/**
 * Scrubs text that is printed piece by piece (a streamed reply): a secret split across two
 * pieces is still caught, because a tail that could be the start of a secret is held back
 * until the next piece (or `end()`) shows what it is. Anything else passes at once.
 */
export class StreamRedactor {
  private held = '';

  push(text: string): string {
    const all = this.held + text;
    const cut = cutOutsideSecrets(all, all.length - heldBackLength(all));
    this.held = all.slice(cut);
    return redact(all.slice(0, cut));
  }

  end(): string {
    const rest = redact(this.held);
    this.held = '';
    return rest;
  }
}

/** How many characters at the end of `text` could begin a secret (and must wait for what follows). */
function heldBackLength(text: string): number {
  let longest = 0;
  for (const secret of secrets) {
    for (let n = Math.min(secret.length - 1, text.length); n > longest; n--) {
      if (text.endsWith(secret.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  // A whole secret inside what is held back must go through redact() with it.
  if (longest > 0) {
    const tail = text.slice(text.length - longest);
    for (const secret of secrets) if (tail.includes(secret)) return 0;
  }
  return longest;
}

/** Moves `cut` past any secret that straddles it, so a scrub of what comes before sees the secret whole. */
function cutOutsideSecrets(text: string, cut: number): number {
  let at = cut;
  for (let moved = true; moved;) {
    moved = false;
    for (const secret of secrets) {
      for (let i = text.indexOf(secret); i !== -1 && i < at; i = text.indexOf(secret, i + 1)) {
        if (i + secret.length > at) {
          at = i + secret.length;
          moved = true;
        }
      }
    }
  }
  return at;
}
