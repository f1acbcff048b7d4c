import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../system/logger.js';
import { redact } from '../system/secrets.js';
import { isLoopback, parseListen } from './access.js';
import { ownAddresses, type AddressSources } from './addresses.js';
import { PageGate } from './page-gate.js';
import type { LiveFeed } from './live.js';
import { Rationed } from './rationed.js';
import { StaticFiles } from './static.js';

/** The largest control request read (a sentence for the voice test). */
const MAX_BODY_BYTES = 4096;
/**
 * The doctor costs a chat request with the user's key, ffmpeg and a model load: it runs once at a
 * time, and its answer is given again, not made again, for this long after.
 */
export const DOCTOR_REST_MS = 30_000;
export const VOICE_TEST_MAX_CHARS = 500;

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
};

/** A request the page cannot make sense of: 400 with the reason. */
class BadRequest extends Error {
  override readonly name = 'BadRequest';
}

/** A control that cannot act now (the voice test while hark speaks): 409 with the reason. */
export class ControlRefused extends Error {
  override readonly name = 'ControlRefused';
}

/** What the page's buttons do, and what it shows on demand; app/ gives the real ones. */
export interface PageControls {
  /** Says `text` (or a sample sentence) through the configured voice and player; resolves once played. */
  voiceTest(text: string | undefined): Promise<{ text: string; voice: string; playedMs: number; player: string }>;
  mute(muted: boolean): void;
  stopSpeaking(): void;
  /** The effective configuration, secrets masked. */
  config(): unknown;
  /** `hark doctor`'s rows. */
  doctor(): Promise<unknown[]>;
  /** The last lines of the log, oldest first. */
  log(): string[];
}

export interface PageServerOptions {
  listen: string;
  token: string | undefined;
  feed: LiveFeed;
  controls: PageControls;
  logger: Logger;
  /** Wall-clock time, epoch ms (tests give their own). */
  now?: () => number;
  /** Where this machine's addresses are read from (tests give their own). */
  addresses?: AddressSources;
}

export interface PageServer {
  /** Where to open it: the address listened on, or for all addresses this machine's own. */
  urls: string[];
  port: number;
  close(): Promise<void>;
}

/**
 * The status page and its JSON API on `listen` (node:http, no framework). Rejects when it cannot
 * listen, and then (whatever failed after listening) leaves no port open.
 */
export async function startPageServer(options: PageServerOptions): Promise<PageServer> {
  const { host, port } = parseListen(options.listen);
  const now = options.now ?? Date.now;
  const page: Page = {
    options,
    files: new StaticFiles(),
    gate: new PageGate(options.token, isLoopback(host), now),
    doctor: new Rationed(() => options.controls.doctor(), DOCTOR_REST_MS, now),
  };
  const server = createServer((request, response) => {
    handle(request, response, page).catch((error: unknown) => {
      if (error instanceof BadRequest) return send(response, 400, { error: error.message });
      options.logger.warn('web.failed', { path: request.url?.split('?')[0], error: (error as Error).message });
      if (!response.headersSent) send(response, 500, { error: (error as Error).message });
      else response.destroy();
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await listen(server, host, port);
  const close = (): Promise<void> =>
    new Promise<void>((resolve) => {
      options.feed.end();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  try {
    const actual = (server.address() as AddressInfo).port;
    return { urls: urlsFor(host, actual, options.addresses), port: actual, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function urlsFor(host: string, port: number, addresses: AddressSources | undefined): string[] {
  const shown = (h: string): string => `http://${h.includes(':') ? `[${h}]` : h}:${port}/`;
  if (host !== '0.0.0.0' && host !== '::') return [shown(host)];
  return [shown('127.0.0.1'), ...ownAddresses(addresses).map(shown)];
}

interface Page {
  options: PageServerOptions;
  files: StaticFiles;
  gate: PageGate;
  doctor: Rationed<unknown[]>;
}

async function handle(request: IncomingMessage, response: ServerResponse, page: Page): Promise<void> {
  const { options, files } = page;
  // A request target no URL can be made of (`GET http://[::1/`) is the client's mistake.
  if (!URL.canParse(request.url ?? '/', 'http://page.invalid')) {
    return send(response, 400, { error: 'the request target is no URL' });
  }
  const url = new URL(request.url ?? '/', 'http://page.invalid');
  const verdict = page.gate.judge(request, url);
  if (!verdict.allowed) {
    const wait: Record<string, string> =
      verdict.retryAfterS === undefined ? {} : { 'Retry-After': String(verdict.retryAfterS) };
    return send(response, verdict.status, { error: verdict.why }, wait);
  }
  if (verdict.redirect) {
    response.writeHead(303, { Location: verdict.redirect, 'Set-Cookie': verdict.setCookie, ...SECURITY_HEADERS });
    response.end();
    return;
  }
  const { feed, controls } = options;
  const route = `${request.method ?? 'GET'} ${url.pathname}`;
  switch (route) {
    case 'GET /api/state':
      return send(response, 200, feed.state.snapshot());
    case 'GET /api/turns':
      return send(response, 200, feed.state.report());
    case 'GET /api/events':
      return feed.open(response);
    case 'GET /api/config':
      return send(response, 200, controls.config());
    case 'POST /api/doctor': {
      await readJson(request);
      const { value, ranAt, again } = await page.doctor.get();
      return send(response, 200, { checks: value, ranAt: new Date(ranAt).toISOString(), again });
    }
    case 'GET /api/log':
      return send(response, 200, { lines: controls.log() });
    case 'POST /api/voice-test': {
      const body = await readJson(request);
      if (body.text !== undefined && typeof body.text !== 'string') {
        return send(response, 400, { error: 'text: a string, or none for the sample sentence' });
      }
      const text = body.text?.trim() || undefined;
      if (text && text.length > VOICE_TEST_MAX_CHARS) {
        return send(response, 400, { error: `text: at most ${VOICE_TEST_MAX_CHARS} characters` });
      }
      try {
        return send(response, 200, await controls.voiceTest(text));
      } catch (error) {
        if (error instanceof ControlRefused) return send(response, 409, { error: error.message });
        throw error;
      }
    }
    case 'POST /api/mute': {
      const body = await readJson(request);
      if (typeof body.muted !== 'boolean') return send(response, 400, { error: 'muted: true or false' });
      controls.mute(body.muted);
      return send(response, 200, { muted: body.muted });
    }
    case 'POST /api/stop':
      await readJson(request);
      controls.stopSpeaking();
      return send(response, 200, { stopped: true });
    default: {
      const file = request.method === 'GET' || request.method === 'HEAD' ? files.get(url.pathname) : undefined;
      if (!file) return send(response, 404, { error: `no such page: ${request.method} ${url.pathname}` });
      response.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-cache', ...SECURITY_HEADERS });
      response.end(request.method === 'HEAD' ? undefined : file.body);
    }
  }
}

/** JSON, scrubbed of every secret hark holds, never cached. */
function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const json = redact(JSON.stringify(body));
  response.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Cache-Control': 'no-store',
    ...(status === 401 ? { 'WWW-Authenticate': 'Bearer realm="hark"' } : {}),
    ...SECURITY_HEADERS,
  });
  response.end(json);
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new BadRequest(`a control request is at most ${MAX_BODY_BYTES} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8').trim();
  if (!text) return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequest('the body is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new BadRequest('the body must be a JSON object');
  return value as Record<string, unknown>;
}
