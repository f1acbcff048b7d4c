import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pcmToWav } from '../../src/audio/wav-header.js';
import { cleanEnv, runHark } from '../helpers/cli.js';

describe('hark run, at start', () => {
  it('opens a connection to the service before anything is heard, without the key and spending nothing', async () => {
    const seen: { method: string | undefined; keyed: boolean }[] = [];
    const server = createServer((req: IncomingMessage, res) => {
      seen.push({ method: req.method, keyed: req.headers.authorization !== undefined });
      res.writeHead(req.method === 'OPTIONS' ? 204 : 500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const dir = mkdtempSync(join(tmpdir(), 'hark-warm-'));
    const quiet = join(dir, 'quiet.wav');
    writeFileSync(quiet, pcmToWav(new Int16Array(16_000 * 2), 16_000));
    try {
      const result = await runHark(['run', '--input', quiet, '-o', join(dir, 'out.wav')], {
        env: cleanEnv({ HARK_SERVICE_BASE_URL: `http://127.0.0.1:${port}/v1`, HARK_API_KEY: 'sk-warm-start' }),
        timeoutMs: 60_000,
      });
      expect(result.code, result.stderr).toBe(0);
      expect(seen).toEqual([{ method: 'OPTIONS', keyed: false }]);
    } finally {
      server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 70_000);
});
