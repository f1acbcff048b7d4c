/**
 * A web page on another site, open in the user's browser, tries every route of hark's API every
 * way a page can without asking CORS: <img>, <script>, fetch in no-cors mode, EventSource, and
 * forms (GET and POST, into frames). hark must change nothing and spend nothing: no doctor run
 * (it makes a chat request with the user's key), no voice test, no mute, no stop.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { launchChromium, watchedPage } from '../helpers/browser.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';
import { startWebHark } from '../helpers/web.js';

const ROUTES = ['state', 'turns', 'events', 'config', 'log', 'doctor', 'voice-test', 'mute', 'stop'];

/** The other site's page: every attempt on `target`'s API, then `document.title` is "done". */
function attackPage(target: string): string {
  const api = ROUTES.map((route) => `${target}api/${route}`);
  return `<!doctype html><html><body><script>
    const urls = ${JSON.stringify(api)};
    const settled = (element) => new Promise((resolve) => { element.onload = element.onerror = resolve; });
    const attempts = [];
    let frame = 0;
    function form(url, method, enctype, fields) {
      const name = 'sink' + frame++;
      const sink = document.createElement('iframe');
      sink.name = name;
      document.body.append(sink);
      const f = document.createElement('form');
      Object.assign(f, { action: url, method, target: name });
      if (enctype) f.enctype = enctype;
      for (const [key, value] of Object.entries(fields)) {
        const input = document.createElement('input');
        Object.assign(input, { type: 'hidden', name: key, value });
        f.append(input);
      }
      document.body.append(f);
      attempts.push(settled(sink));
      f.submit();
    }
    for (const url of urls) {
      const img = new Image();
      attempts.push(settled(img));
      img.src = url;
      const script = document.createElement('script');
      attempts.push(settled(script));
      script.src = url;
      document.body.append(script);
      for (const method of ['GET', 'POST']) {
        const body = method === 'POST' ? '{"muted":true,"text":"hello from elsewhere"}' : undefined;
        attempts.push(fetch(url, { mode: 'no-cors', method, body, headers: { 'Content-Type': 'text/plain' } }).catch(() => undefined));
      }
      attempts.push(new Promise((resolve) => {
        const stream = new EventSource(url);
        stream.onopen = stream.onerror = () => { stream.close(); resolve(); };
      }));
      form(url, 'GET', undefined, { muted: 'true' });
      form(url, 'POST', 'text/plain', { '{"muted":true,"text":"hello","x":"': '"}' });
      form(url, 'POST', 'application/x-www-form-urlencoded', { muted: 'true' });
    }
    Promise.all(attempts).then(() => { document.title = 'done'; });
  </script></body></html>`;
}

/** A second origin, served by the test: its one page is the attack on `target`. */
async function otherSite(target: string): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    response.end(attackPage(target));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'hark-cross-site-'));
let sim: SimServer;
let browser: Browser;
beforeAll(async () => {
  [sim, browser] = await Promise.all([startSim({ timing: FAST_TIMING }), launchChromium()]);
});
afterAll(async () => {
  await browser.close();
  await sim.close();
});

describe("a page on another site, in the user's browser", () => {
  it('tries every /api/* route with <img>, <script>, fetch no-cors, EventSource and forms, and changes and spends nothing', async () => {
    sim.script.transcript('Hello there.').reply('Hello.');
    const hark = await startWebHark(['run', '--input', UTTERANCE, '--fast', '--web', '-o', join(dir, 'out.wav')], {
      HARK_SERVICE_BASE_URL: sim.url,
      HARK_API_KEY: sim.apiKey,
    });
    const site = await otherSite(hark.url);
    try {
      await hark.line('web.staying');
      const before = { chat: sim.requestsTo('chat').length, speech: sim.requestsTo('speech').length };
      const logged = hark.lines.length;
      // Another site (localhost is not 127.0.0.1), and another port of this very machine (the same site).
      for (const origin of [`http://localhost:${site.port}/`, `http://127.0.0.1:${site.port}/`]) {
        const { page } = await watchedPage(browser);
        await page.goto(origin);
        await page.waitForFunction('document.title === "done"', undefined, { timeout: 45_000 });
        await page.close();
      }
      // Nothing changed, nothing was spent: no chat request (the doctor's), no speech (a voice
      // test), no control logged.
      expect({ chat: sim.requestsTo('chat').length, speech: sim.requestsTo('speech').length }).toEqual(before);
      const after = hark.lines.slice(logged).map((line) => String(line.event));
      expect(after.filter((event) => /^(web\.(voice_test|stop)|mic\.muted|doctor)/.test(event))).toEqual([]);
      const state = (await (await fetch(`${hark.url}api/state`)).json()) as { muted: boolean };
      expect(state.muted).toBe(false);
      // hark's own page still works meanwhile: the same requests from it are answered.
      const { page, errors } = await watchedPage(browser);
      await page.goto(hark.url);
      await page.locator('#link[data-link="live"]').waitFor();
      const doctor = await page.evaluate(() =>
        fetch('/api/doctor', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }).then(
          (response) => response.status,
        ),
      );
      expect(doctor).toBe(200);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      await site.close();
      expect(await hark.stop()).toBe(0);
    }
  }, 120_000);
});
