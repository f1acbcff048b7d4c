import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isLoopback } from './access.js';

const COOKIE = 'hark_page';
/** A browser that opened the page with the token stays in this long (unless hark restarts). */
const SESSION_MS = 30 * 24 * 3_600_000;
/** Sessions remembered at once; the oldest is forgotten first. */
const SESSIONS_KEPT = 32;
/** Wrong tokens an address may send before each further try waits. */
const FREE_FAILURES = 5;
/** The wait after the free failures doubles from this, up to the most. */
const FIRST_WAIT_MS = 1000;
const MOST_WAIT_MS = 60_000;
/** Addresses whose failures are remembered at once; the oldest is forgotten first. */
const ADDRESSES_KEPT = 1024;

export type AccessDecision =
  | { allowed: true; setCookie?: string; redirect?: string }
  | { allowed: false; status: 401 | 403 | 421 | 429; why: string; retryAfterS?: number };

/**
 * Who may have what the page serves. A browser's request for the API from another site (or
 * another port of this one) is refused whatever it asks: only this page, a script or the
 * address bar may ask. On loopback the Host must name this machine, so a web page elsewhere
 * cannot reach the page through a name it points here (DNS rebinding). A request that changes
 * something must be JSON, from this page or no page at all.
 *
 * With a token, a request must show it: as `Authorization: Bearer`, as `?token=` (a page opened
 * with it gets a session cookie, a random id the server forgets on restart, after 30 days, or
 * when too many are open, and is sent on without it in the address), or as that cookie. An
 * address that sent five wrong tokens waits 1 s, 2 s, 4 s ... (at most a minute) before each
 * further try is even looked at.
 */
export class PageGate {
  private readonly sessions = new Map<string, number>();
  private readonly failures = new Map<string, { count: number; until: number }>();

  constructor(
    private readonly token: string | undefined,
    private readonly loopback: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  judge(request: IncomingMessage, url: URL): AccessDecision {
    const { headers } = request;
    if (this.loopback && !isLoopback(hostOf(headers.host ?? ''))) {
      return { allowed: false, status: 421, why: 'this page answers only to its own address on this machine' };
    }
    const own = `http://${headers.host ?? ''}`;
    const origin = headers.origin;
    if (url.pathname.startsWith('/api/')) {
      const site = headers['sec-fetch-site'];
      if (site === 'cross-site' || site === 'same-site' || (origin !== undefined && origin !== own)) {
        return { allowed: false, status: 403, why: "the page's API answers only the page itself" };
      }
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      if (!/^application\/json\b/i.test(headers['content-type'] ?? '')) {
        return { allowed: false, status: 403, why: 'controls take JSON' };
      }
      if (origin !== undefined && origin !== own) {
        return { allowed: false, status: 403, why: 'controls are for this page only' };
      }
    }
    return this.token === undefined ? { allowed: true } : this.checkToken(request, url, this.token);
  }

  private checkToken(request: IncomingMessage, url: URL, token: string): AccessDecision {
    const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
    const query = url.searchParams.get('token');
    const shown = bearer ?? query;
    if (shown === null) {
      // A session id is 256 random bits: there is no guessing one, so a stale one is no attempt.
      const session = cookiesOf(request.headers.cookie ?? '')[COOKIE];
      return session !== undefined && this.knows(session) ? { allowed: true } : denied();
    }
    const address = request.socket.remoteAddress ?? '';
    const waiting = this.waitFor(address);
    if (waiting > 0) {
      const retryAfterS = Math.ceil(waiting / 1000);
      return {
        allowed: false,
        status: 429,
        why: `too many wrong tokens from ${address}: try again in ${retryAfterS} s`,
        retryAfterS,
      };
    }
    if (!this.tried(same(shown, token), address)) return denied();
    if (bearer !== undefined || request.method !== 'GET' || url.pathname.startsWith('/api/')) return { allowed: true };
    url.searchParams.delete('token');
    // One leading slash: `//evil.example/x` in a Location header is another site.
    const redirect = `/${url.pathname.replace(/^\/+/, '')}${url.search}`;
    return {
      allowed: true,
      redirect,
      setCookie: `${COOKIE}=${this.openSession()}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${SESSION_MS / 1000}`,
    };
  }

  /** Counts a wrong token against the address (a right one clears it); true when it was right. */
  private tried(right: boolean, address: string): boolean {
    if (right) {
      this.failures.delete(address);
      return true;
    }
    const count = (this.failures.get(address)?.count ?? 0) + 1;
    const wait = count > FREE_FAILURES ? Math.min(MOST_WAIT_MS, FIRST_WAIT_MS * 2 ** (count - FREE_FAILURES - 1)) : 0;
    this.failures.delete(address);
    this.failures.set(address, { count, until: this.now() + wait });
    forgetOldest(this.failures, ADDRESSES_KEPT);
    return false;
  }
  private waitFor(address: string): number {
    const failed = this.failures.get(address);
    return failed ? failed.until - this.now() : 0;
  }

  private openSession(): string {
    const id = randomBytes(32).toString('base64url');
    this.sessions.set(id, this.now() + SESSION_MS);
    forgetOldest(this.sessions, SESSIONS_KEPT);
    return id;
  }

  private knows(session: string): boolean {
    for (const [id, until] of this.sessions) {
      if (until <= this.now()) this.sessions.delete(id);
      else if (same(id, session)) return true;
    }
    return false;
  }
}

function forgetOldest<K, V>(map: Map<K, V>, kept: number): void {
  for (const key of map.keys()) {
    if (map.size <= kept) return;
    map.delete(key);
  }
}

function same(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

function denied(): AccessDecision {
  return {
    allowed: false,
    status: 401,
    why: 'this page needs its token: open it once as http://<address>/?token=<the token> (it is remembered), or send Authorization: Bearer <the token>',
  };
}

function hostOf(header: string): string {
  const bracketed = /^\[([^\]]+)\]/.exec(header);
  if (bracketed) return bracketed[1] as string;
  return header.replace(/:\d+$/, '');
}

function cookiesOf(header: string): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return cookies;
}
