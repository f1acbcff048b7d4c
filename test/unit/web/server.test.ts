import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, TOKEN, call, start, stopServer } from '../../helpers/page-server.js';

afterEach(stopServer);

/** Reads the live stream until `count` events have come, then hangs up. */
function events(port: number, count: number, headers: Record<string, string> = {}): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/api/events', headers }, (res) => {
      let text = '';
      const seen: unknown[] = [];
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        let at;
        while ((at = text.indexOf('\n\n')) >= 0) {
          const frame = text.slice(0, at);
          text = text.slice(at + 2);
          const data = /^data: (.*)$/m.exec(frame)?.[1];
          if (data) seen.push(JSON.parse(data));
          if (seen.length === count) {
            req.destroy();
            resolve(seen);
          }
        }
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the status page server', () => {
  it('serves the page, its scripts and uPlot from the package, and 404 for anything else', async () => {
    const { port } = await start(undefined);
    const page = await call(port, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain('/vendor/uPlot.iife.min.js');
    expect((await call(port, '/vendor/uPlot.iife.min.js')).body).toContain('uPlot');
    expect((await call(port, '/app.js')).status).toBe(200);
    expect((await call(port, '/../package.json')).status).toBe(404);
    expect((await call(port, '/config/default.yaml')).status).toBe(404);
    const noUrl = await call(port, 'http://[::1/api/state');
    expect(noUrl.status).toBe(400);
    expect(noUrl.body).toMatch(/the request target is no URL/);
  });

  it('with a token: 401 without it or with a wrong one; the right one as Bearer, or once in the address (then a cookie)', async () => {
    const { port } = await start(TOKEN);
    expect((await call(port, '/api/state')).status).toBe(401);
    expect((await call(port, '/', { headers: { Authorization: 'Bearer wrong-token-of-enough-length' } })).status).toBe(
      401,
    );
    expect((await call(port, '/?token=wrong-token-of-enough-length')).status).toBe(401);
    expect((await call(port, '/api/state', { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
    const elsewhere = await call(port, `/.//evil.example/x?token=${TOKEN}`);
    expect(elsewhere.headers.location).toBe('/evil.example/x');
    const opened = await call(port, `/?token=${TOKEN}`);
    expect(opened.status).toBe(303);
    expect(opened.headers.location).toBe('/');
    const cookie = String(opened.headers['set-cookie']).split(';')[0] as string;
    expect(cookie).not.toContain(TOKEN);
    expect((await call(port, '/api/turns', { headers: { Cookie: cookie } })).status).toBe(200);
    expect((await call(port, '/api/turns', { headers: { Cookie: 'hark_page=forged' } })).status).toBe(401);
  });

  it('never sends a secret: the token and the API key are masked in every response', async () => {
    const { port } = await start(TOKEN);
    const auth = { Authorization: `Bearer ${TOKEN}` };
    for (const path of ['/api/config', '/api/doctor', '/api/log', '/api/state', `/?token=${TOKEN}`]) {
      const post = path === '/api/doctor';
      const reply = await call(port, path, {
        method: post ? 'POST' : 'GET',
        headers: post ? { ...auth, 'Content-Type': 'application/json' } : auth,
      });
      expect(reply.status, path).toBeLessThan(400);
      const everything = JSON.stringify(reply.headers) + reply.body;
      expect(everything, path).not.toContain(TOKEN);
      expect(everything, path).not.toContain(API_KEY);
    }
  });

  it('answers only to its own name on loopback (no DNS rebinding), and takes controls only as JSON from itself', async () => {
    const { port, calls } = await start(undefined);
    expect((await call(port, '/api/state', { headers: { Host: 'evil.example:8790' } })).status).toBe(421);
    const json = { 'Content-Type': 'application/json' };
    expect((await call(port, '/api/stop', { method: 'POST', body: '{}' })).status).toBe(403);
    expect(
      (
        await call(port, '/api/stop', {
          method: 'POST',
          headers: { ...json, Origin: 'http://evil.example' },
          body: '{}',
        })
      ).status,
    ).toBe(403);
    expect(calls).toEqual([]);
    expect((await call(port, '/api/stop', { method: 'POST', headers: json, body: '{}' })).status).toBe(200);
    expect((await call(port, '/api/mute', { method: 'POST', headers: json, body: '{"muted":true}' })).status).toBe(200);
    expect((await call(port, '/api/mute', { method: 'POST', headers: json, body: '{"muted":"yes"}' })).status).toBe(
      400,
    );
    expect((await call(port, '/api/mute', { method: 'POST', headers: json, body: 'not json' })).status).toBe(400);
    const test = await call(port, '/api/voice-test', { method: 'POST', headers: json, body: '{"text":"hi there"}' });
    expect(JSON.parse(test.body)).toMatchObject({ text: 'hi there', playedMs: 1200 });
    const busy = await call(port, '/api/voice-test', { method: 'POST', headers: json, body: '{"text":"busy"}' });
    expect(busy.status).toBe(409);
    const notText = await call(port, '/api/voice-test', { method: 'POST', headers: json, body: '{"text":5}' });
    expect(notText.status).toBe(400);
    expect(notText.body).toMatch(/text: a string, or none for the sample sentence/);
    expect(calls).toEqual(['stop', 'mute true', 'voice-test hi there', 'voice-test busy']);
  });

  it('streams a snapshot, then every event, and says whether anyone is watching', async () => {
    const { feed, port } = await start(undefined);
    const watching: boolean[] = [];
    feed.watching.subscribe((on) => watching.push(on));
    feed.push({ type: 'state', state: 'listening' });
    const stream = events(port, 3);
    while (feed.clientCount === 0) await new Promise((resolve) => setImmediate(resolve));
    feed.push({ type: 'transcript', utteranceId: 1, text: `what time is it ${API_KEY}`, tentative: false });
    feed.push({ type: 'state', state: 'thinking' });
    const [hello, transcript, state] = await stream;
    expect(hello).toMatchObject({ type: 'hello', snapshot: { state: 'listening' } });
    expect(transcript).toEqual({ type: 'transcript', utteranceId: 1, text: 'what time is it ***', tentative: false });
    expect(state).toEqual({ type: 'state', state: 'thinking' });
    while (feed.clientCount > 0) await new Promise((resolve) => setImmediate(resolve));
    expect(watching).toEqual([false, true, false]);
  });
});
