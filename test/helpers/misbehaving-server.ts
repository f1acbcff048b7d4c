import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface MisbehavingServer {
  url: string;
  /** Requests seen, in order: path and body. */
  requests: { path: string; body: string }[];
  close(): Promise<void>;
}

export type Handler = (req: IncomingMessage & { body: string }, res: ServerResponse) => void;

/**
 * A small HTTP server on loopback that misbehaves as a test tells it to: written in the test,
 * not the stand-in's fault scripts, so the client and the stand-in cannot agree by accident.
 */
export async function misbehavingServer(handler: Handler): Promise<MisbehavingServer> {
  const requests: { path: string; body: string }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      requests.push({ path: req.url ?? '/', body });
      handler(Object.assign(req, { body }), res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes `frame` every `everyMs` until the client goes away: a server that only says it is alive. */
export function keepAlive(res: ServerResponse, frame: string, everyMs = 20): void {
  const timer = setInterval(() => res.write(frame), everyMs);
  res.on('close', () => clearInterval(timer));
}

export function sseHeaders(res: ServerResponse, extra: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...extra });
}
