import { afterEach, describe, expect, it } from 'vitest';
import { exposureProblem } from '../../../src/web/access.js';
import { localRoutes } from '../../../src/web/addresses.js';
import { DOCTOR_REST_MS } from '../../../src/web/server.js';
import { TOKEN, call, start, stopServer } from '../../helpers/page-server.js';

afterEach(stopServer);

const json = { 'Content-Type': 'application/json' };
/** Every route of the page's API, as the page itself asks for it. */
const API: [method: string, path: string, body?: string][] = [
  ['GET', '/api/state'],
  ['GET', '/api/turns'],
  ['GET', '/api/events'],
  ['GET', '/api/config'],
  ['GET', '/api/log'],
  ['POST', '/api/doctor', '{}'],
  ['POST', '/api/voice-test', '{"text":"hello"}'],
  ['POST', '/api/mute', '{"muted":true}'],
  ['POST', '/api/stop', '{}'],
];

describe("a browser on another site asking for the page's API", () => {
  it('is refused on every route, by Sec-Fetch-Site or Origin, and nothing is run', async () => {
    const { port, calls } = await start(undefined);
    const askers: Record<string, string>[] = [
      { 'Sec-Fetch-Site': 'cross-site' },
      // Another port of this machine is the same site but another origin.
      { 'Sec-Fetch-Site': 'same-site' },
      { Origin: 'http://evil.example' },
    ];
    for (const headers of askers) {
      for (const [method, path, body] of API) {
        const reply = await call(port, path, { method, headers: { ...json, ...headers }, body });
        expect(reply.status, `${method} ${path} ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    expect(calls).toEqual([]);
    // The page itself (same-origin), the address bar (none) and a script (no header) are answered.
    for (const site of ['same-origin', 'none']) {
      expect((await call(port, '/api/state', { headers: { 'Sec-Fetch-Site': site } })).status).toBe(200);
    }
    expect((await call(port, '/api/state')).status).toBe(200);
  });

  it('cannot run the doctor with a GET (an <img> or a link): it is a POST, and runs at most once in 30 s', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { port, calls } = await start(undefined, [], { now: () => now });
    expect((await call(port, '/api/doctor')).status).toBe(404);
    expect(calls).toEqual([]);
    const ask = () => call(port, '/api/doctor', { method: 'POST', headers: json, body: '{}' });
    const [first, second] = await Promise.all([ask(), ask()]);
    expect(calls).toEqual(['doctor']);
    expect(JSON.parse(first?.body ?? '')).toMatchObject({ ranAt: '2026-01-01T00:00:00.000Z', again: false });
    expect(JSON.parse(second?.body ?? '')).toMatchObject({ ranAt: '2026-01-01T00:00:00.000Z', again: true });
    now += DOCTOR_REST_MS - 1;
    expect(JSON.parse((await ask()).body)).toMatchObject({ again: true });
    expect(calls).toEqual(['doctor']);
    now += 1;
    expect(JSON.parse((await ask()).body)).toMatchObject({ again: false });
    expect(calls).toEqual(['doctor', 'doctor']);
  });
});

describe('the token', () => {
  it('must carry real entropy: sixteen of one character, or a pattern, is refused with how to make one', () => {
    expect(exposureProblem('0.0.0.0:8790', 'a'.repeat(16))).toMatch(
      /^HARK_WEB_TOKEN is too easy to guess: its characters carry about 0 bits, and at least 64 are needed; use random characters \(`openssl rand -hex 16` makes one\)$/,
    );
    expect(exposureProblem('0.0.0.0:8790', 'abababababababababab')).toMatch(/too easy to guess/);
    expect(exposureProblem('0.0.0.0:8790', 'password12345678')).toMatch(/too easy to guess/);
    expect(exposureProblem('0.0.0.0:8790', '3f9c0a7be41d28c6f0b5e19a7d3c8e42')).toBeUndefined();
    expect(exposureProblem('0.0.0.0:8790', TOKEN)).toBeUndefined();
  });

  it('guessed wrong five times from one address: each further try waits, longer each time, even with the right token', async () => {
    let now = 0;
    const { port } = await start(TOKEN, [], { now: () => now });
    const guess = (token: string) => call(port, '/api/state', { headers: { Authorization: `Bearer ${token}` } });
    for (let n = 0; n < 5; n++) expect((await guess(`wrong-guess-number-${n}`)).status).toBe(401);
    expect((await guess('wrong-guess-number-5')).status).toBe(401);
    // The sixth wrong one costs a second: until it passes, nothing is even compared.
    const refused = await guess(TOKEN);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    expect((JSON.parse(refused.body) as { error: string }).error).toMatch(
      /too many wrong tokens from .*: try again in 1 s/,
    );
    now += 1000;
    expect((await guess('wrong-guess-number-6')).status).toBe(401);
    now += 1999;
    expect((await guess(TOKEN)).status).toBe(429);
    now += 1;
    expect((await guess(TOKEN)).status).toBe(200);
    // A right token clears the count.
    expect((await guess('wrong-guess-again-0')).status).toBe(401);
    expect((await guess(TOKEN)).status).toBe(200);
  });

  it('is answered with a random session cookie, a new one each time, which a restarted server does not know', async () => {
    const { port } = await start(TOKEN);
    const open = async (): Promise<string> => {
      const opened = await call(port, `/?token=${TOKEN}`);
      expect(opened.status).toBe(303);
      expect(String(opened.headers['set-cookie'])).toMatch(/; HttpOnly; SameSite=Strict; Max-Age=2592000$/);
      return String(opened.headers['set-cookie']).split(';')[0] as string;
    };
    const [one, two] = [await open(), await open()];
    expect(one).not.toBe(two);
    expect(one).toMatch(/^hark_page=[\w-]{43}$/);
    expect((await call(port, '/api/state', { headers: { Cookie: one } })).status).toBe(200);
    await stopServer();
    const again = await start(TOKEN);
    expect((await call(again.port, '/api/state', { headers: { Cookie: one } })).status).toBe(401);
  });
});

describe('listening on every address', () => {
  const TRIE = [
    'Main:',
    '  +-- 0.0.0.0/0 3 0 5',
    '     +-- 127.0.0.0/8 2 0 2',
    '           |-- 127.0.0.1',
    '              /32 host LOCAL',
    '     +-- 192.168.1.0/24 2 0 2',
    '        |-- 192.168.1.0',
    '           /24 link UNICAST',
    '        |-- 192.168.1.23',
    '           /32 host LOCAL',
    '        |-- 192.168.1.255',
    '           /32 link BROADCAST',
    'Local:',
    '        |-- 192.168.1.23',
    '           /32 host LOCAL',
  ].join('\n');

  it("names this machine's addresses from the routing table where a sandbox allows no netlink socket, and serves", async () => {
    expect(localRoutes(TRIE)).toEqual(['192.168.1.23']);
    const refused = () => {
      throw Object.assign(
        new Error('A system error occurred: uv_interface_addresses returned Unknown system error 97'),
        {
          code: 'ERR_SYSTEM_ERROR',
        },
      );
    };
    const { port, urls } = await start(TOKEN, [], {
      listen: '0.0.0.0:0',
      addresses: { interfaces: refused, routes: () => TRIE },
    });
    expect(urls).toEqual([`http://127.0.0.1:${port}/`, `http://192.168.1.23:${port}/`]);
    expect((await call(port, '/api/state', { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});
