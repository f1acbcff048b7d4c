import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { portHolder } from '../../../src/system/port-holder.js';

let server: Server | undefined;
afterEach(() => server?.close());

function listen(): Promise<number> {
  server = createServer();
  return new Promise((resolve) =>
    server?.listen(0, '127.0.0.1', () => resolve((server?.address() as { port: number }).port)),
  );
}

describe('portHolder', () => {
  it('names the process listening on a port, and its pid', async () => {
    const port = await listen();
    expect(portHolder(port)).toMatch(new RegExp(`^\\S.* \\(pid ${process.pid}\\)$`));
  });

  it('says nothing of a port nobody listens on', async () => {
    const port = await listen();
    server?.close();
    await new Promise((resolve) => server?.once('close', resolve));
    server = undefined;
    expect(portHolder(port)).toBeUndefined();
  });
});
