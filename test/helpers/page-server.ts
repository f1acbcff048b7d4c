import { request } from 'node:http';
import { LiveFeed } from '../../src/web/live.js';
import { PageState } from '../../src/web/page-state.js';
import {
  ControlRefused,
  startPageServer,
  type PageControls,
  type PageServer,
  type PageServerOptions,
} from '../../src/web/server.js';
import { registerSecret } from '../../src/system/secrets.js';
import { watchedLogger } from './logger.js';

/** What the page server's tests use as a token and an API key: both registered as secrets. */
export const TOKEN = 'page-token-server-test-5b1e0c';
export const API_KEY = 'sk-server-test-key-93ad1f0e';
registerSecret(TOKEN);
registerSecret(API_KEY);

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function call(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Controls that only say they were used, in `calls`. */
export function controls(calls: string[]): PageControls {
  return {
    voiceTest: (text) => {
      calls.push(`voice-test ${text ?? ''}`);
      if (text === 'busy') return Promise.reject(new ControlRefused('hark is speaking'));
      return Promise.resolve({ text: text ?? 'sample', voice: 'sim', playedMs: 1200, player: 'file' });
    },
    mute: (on) => void calls.push(`mute ${String(on)}`),
    stopSpeaking: () => void calls.push('stop'),
    config: () => ({ secrets: { apiKey: 'set (not shown)' }, echo: `key ${API_KEY}` }),
    doctor: () => {
      calls.push('doctor');
      return Promise.resolve([{ name: 'node', ok: true, detail: `key ${API_KEY}` }]);
    },
    log: () => [`{"event":"x","token":"${TOKEN}"}`],
  };
}

let server: PageServer | undefined;

/** Closes the server `start` started last (each test file calls it after each test). */
export async function stopServer(): Promise<void> {
  await server?.close();
  server = undefined;
}

export async function start(token: string | undefined, calls: string[] = [], more: Partial<PageServerOptions> = {}) {
  const feed = new LiveFeed(new PageState({ version: 'test' }));
  server = await startPageServer({
    listen: '127.0.0.1:0',
    token,
    feed,
    controls: controls(calls),
    logger: watchedLogger(),
    ...more,
  });
  return { feed, port: server.port, calls, urls: server.urls };
}
