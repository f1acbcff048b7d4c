import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

export const TOKEN_MIN_CHARS = 16;
const COOKIE = 'hark_page';

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
 * Why the page cannot start as configured, or undefined when it can: an address other machines
 * reach needs a token, and a token too short to guess is no protection.
 */
export function exposureProblem(listen: string, token: string | undefined): string | undefined {
  if (token !== undefined && token.length < TOKEN_MIN_CHARS) {
    return `HARK_WEB_TOKEN is too short: use at least ${TOKEN_MIN_CHARS} characters (for example the output of \`openssl rand -hex 16\`)`;
  }
  if (token === undefined && !isLoopback(parseListen(listen).host)) {
    return `web.listen: ${listen} can be reached from other machines, so the status page needs a token: set HARK_WEB_TOKEN (or a systemd credential named hark-web-token) to at least ${TOKEN_MIN_CHARS} random characters, or listen on 127.0.0.1`;
  }
  return undefined;
}

/** What the page's cookie holds: derived from the token, so no response ever carries the token itself. */
function cookieValue(token: string): string {
  return createHash('sha256').update(`hark status page:${token}`).digest('hex');
}

function same(a: string, b: string): boolean {
  const x = createHash('sha256').update(a).digest();
  const y = createHash('sha256').update(b).digest();
  return timingSafeEqual(x, y);
}

export type Verdict =
  { allowed: true; setCookie?: string; redirect?: string } | { allowed: false; status: 401 | 403 | 421; why: string };

/**
 * Whether a request may have what it asks for. With a token, it must show it: as
 * `Authorization: Bearer`, as `?token=` (a page opened with it gets a cookie made from it and is
 * sent on without it in the address), or as that cookie. On loopback the Host must name this
 * machine, so a web page elsewhere cannot reach the page through a name it points here (DNS
 * rebinding). A request that changes something must be JSON, from this page or no page at all.
 */
export function judge(request: IncomingMessage, url: URL, token: string | undefined, loopback: boolean): Verdict {
  if (loopback && !isLoopback(hostOf(request.headers.host ?? ''))) {
    return { allowed: false, status: 421, why: 'this page answers only to its own address on this machine' };
  }
  if (request.method === 'POST') {
    const type = request.headers['content-type'] ?? '';
    const origin = request.headers.origin;
    if (!/^application\/json\b/i.test(type)) return { allowed: false, status: 403, why: 'controls take JSON' };
    if (origin !== undefined && origin !== `http://${request.headers.host ?? ''}`) {
      return { allowed: false, status: 403, why: 'controls are for this page only' };
    }
  }
  if (token === undefined) return { allowed: true };
  const bearer = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer !== undefined) return same(bearer, token) ? { allowed: true } : denied();
  const query = url.searchParams.get('token');
  if (query !== null) {
    if (!same(query, token)) return denied();
    if (request.method !== 'GET' || url.pathname.startsWith('/api/')) return { allowed: true };
    url.searchParams.delete('token');
    // One leading slash: `//evil.example/x` in a Location header is another site.
    const redirect = `/${url.pathname.replace(/^\/+/, '')}${url.search}`;
    return {
      allowed: true,
      redirect,
      setCookie: `${COOKIE}=${cookieValue(token)}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000`,
    };
  }
  const cookie = cookiesOf(request.headers.cookie ?? '')[COOKIE];
  return cookie !== undefined && same(cookie, cookieValue(token)) ? { allowed: true } : denied();
}

function denied(): Verdict {
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
