import { isIP } from 'node:net';

export const TOKEN_MIN_CHARS = 16;
/** A token whose characters carry less than this (estimated) is too easy to guess. */
export const TOKEN_MIN_BITS = 64;

export interface ListenAddress {
  host: string;
  port: number;
}

/** `127.0.0.1:8790`, `[::1]:8790`, `0.0.0.0:0` → host and port (the schema has checked the form). */
export function parseListen(listen: string): ListenAddress {
  const at = listen.lastIndexOf(':');
  const host = listen.slice(0, at).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(listen.slice(at + 1)) };
}

/** Only this machine can reach the address: 127.0.0.0/8, ::1 or localhost. */
export function isLoopback(host: string): boolean {
  const name = host.toLowerCase();
  if (name === 'localhost' || name === '::1' || name === '::ffff:127.0.0.1') return true;
  return isIP(name) === 4 && name.startsWith('127.');
}

/**
 * What a token's characters carry, estimated from how they are spread: its length times the
 * entropy of its own characters (16 times the same character carries 0 bits; 32 random hex
 * digits about 120). Generous to a passphrase, hard on a pattern.
 */
export function tokenBits(token: string): number {
  const counts = new Map<string, number>();
  const characters = [...token];
  for (const c of characters) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perCharacter = 0;
  for (const count of counts.values()) {
    const p = count / characters.length;
    perCharacter -= p * Math.log2(p);
  }
  return perCharacter * characters.length;
}

/**
 * Why the page cannot start as configured, or undefined when it can: an address other machines
 * reach needs a token, and a token that is short or patterned is no protection.
 */
export function exposureProblem(listen: string, token: string | undefined): string | undefined {
  const make = '`openssl rand -hex 16` makes one';
  if (token === undefined) {
    if (isLoopback(parseListen(listen).host)) return undefined;
    return `web.listen: ${listen} can be reached from other machines, so the status page needs a token: set HARK_WEB_TOKEN (or a systemd credential named hark-web-token) to at least ${TOKEN_MIN_CHARS} random characters (${make}), or listen on 127.0.0.1`;
  }
  if (token.length < TOKEN_MIN_CHARS) {
    return `HARK_WEB_TOKEN is too short: use at least ${TOKEN_MIN_CHARS} random characters (${make})`;
  }
  const bits = tokenBits(token);
  if (bits < TOKEN_MIN_BITS) {
    return `HARK_WEB_TOKEN is too easy to guess: its characters carry about ${Math.round(bits)} bits, and at least ${TOKEN_MIN_BITS} are needed; use random characters (${make})`;
  }
  return undefined;
}
