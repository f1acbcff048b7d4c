import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startMcpSource, type McpSource } from '../../../../src/app/tools/mcp.js';
import { createMemoryLogger } from '../../../../src/system/logger.js';
import { watchedLogger } from '../../../helpers/logger.js';

const CRASHING = resolve(import.meta.dirname, '../../../fixtures/mcp/crashing-server.mjs');
const signal = (): AbortSignal => new AbortController().signal;
const open: (McpSource | Server)[] = [];

afterEach(async () => {
  for (const it of open.splice(0)) {
    if ('tools' in it) await it.stop();
    else {
      it.closeAllConnections();
      await new Promise((done) => it.close(done));
    }
  }
});

describe('MCP servers', () => {
  it('a user name and password in the URL are sent as Basic authorization, and are never logged, nor a query secret', async () => {
    const seen: (string | undefined)[] = [];
    const http = createServer((req, res) => {
      seen.push(req.headers.authorization);
      res.writeHead(503).end();
    });
    open.push(http);
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const { port } = http.address() as AddressInfo;
    const logger = watchedLogger();
    const source = await startMcpSource(
      {
        name: 'locked',
        command: undefined,
        args: [],
        env: {},
        url: `http://hark-user:pa55-word-99@127.0.0.1:${port}/mcp?token=query-secret-789&mode=full`,
        headers: {},
        allow: ['*'],
      },
      { callTimeoutMs: 2000, logger, connectTimeoutMs: 2000 },
    );
    open.push(source);
    await logger.line('mcp.reconnect');
    expect(seen[0]).toBe(`Basic ${Buffer.from('hark-user:pa55-word-99').toString('base64')}`);
    const logged = JSON.stringify(logger.lines);
    expect(logger.lines.find((l) => l.event === 'mcp.unavailable')).toBeDefined();
    expect(logged).not.toMatch(/pa55-word-99|query-secret-789|hark-user|aGFyay11c2Vy/);
  });

  it('stdio: only allowed tools are offered; the child gets no key; one that dies is started again and works', async () => {
    const logger = watchedLogger();
    process.env.HARK_API_KEY = 'sk-never-to-a-child';
    process.env.MCP_TEST_TOKEN = 'tok-for-the-child';
    try {
      const source = await startMcpSource(
        {
          name: 'crashing',
          command: process.execPath,
          args: [CRASHING, '--token=${MCP_TEST_TOKEN}'],
          env: { TOKEN: '${MCP_TEST_TOKEN}' },
          url: undefined,
          headers: {},
          allow: ['ping', 'crash', 'env', 'args'],
        },
        { callTimeoutMs: 5000, logger },
      );
      open.push(source);
      expect(source.tools().map((t) => `${t.name} ${t.source}`)).toEqual([
        'ping mcp:crashing',
        'crash mcp:crashing',
        'env mcp:crashing',
        'args mcp:crashing',
      ]);
      const args = source.tools().find((t) => t.name === 'args');
      expect((await args?.run({}, signal()))?.text).toBe('--token=tok-for-the-child');
      const env = source.tools().find((t) => t.name === 'env');
      expect((await env?.run({ names: ['HARK_API_KEY', 'TOKEN'] }, signal()))?.text).toBe(
        'HARK_API_KEY=(unset) TOKEN=tok-for-the-child',
      );
      await expect(
        source
          .tools()
          .find((t) => t.name === 'crash')
          ?.run({}, signal()),
      ).rejects.toThrow();
      await logger.line('mcp.reconnected');
      expect(logger.lines.find((l) => l.event === 'mcp.reconnect')).toMatchObject({ server: 'crashing', inMs: 1000 });
      expect(
        (
          await source
            .tools()
            .find((t) => t.name === 'ping')
            ?.run({}, signal())
        )?.text,
      ).toBe('pong');
    } finally {
      delete process.env.HARK_API_KEY;
      delete process.env.MCP_TEST_TOKEN;
    }
  });

  it('streamable HTTP: the header and the URL are filled from the environment and sent; the allow-list holds', async () => {
    const seen: (string | undefined)[] = [];
    const queries: (string | undefined)[] = [];
    const http = createServer((req, res) => {
      seen.push(req.headers.authorization);
      queries.push(req.url);
      const server = new McpServer({ name: 'http', version: '1.0.0' });
      server.registerTool('lights_off', { description: 'Turns the lights off.' }, () => ({
        content: [{ type: 'text', text: 'The kitchen lights are off.' }],
      }));
      server.registerTool('unlock_door', { description: 'Unlocks the door.' }, () => ({
        content: [{ type: 'text', text: 'unlocked' }],
      }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => void transport.close());
      void server.connect(transport).then(() => transport.handleRequest(req, res));
    });
    open.push(http);
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const { port } = http.address() as AddressInfo;
    process.env.MCP_TEST_HASS = 'hass-token-123';
    process.env.MCP_TEST_QUERY = 'query-secret-456';
    try {
      const source = await startMcpSource(
        {
          name: 'home',
          command: undefined,
          args: [],
          env: {},
          url: `http://127.0.0.1:${port}/mcp?key=\${MCP_TEST_QUERY}`,
          headers: { Authorization: 'Bearer ${MCP_TEST_HASS}' },
          allow: ['lights_off'],
        },
        { callTimeoutMs: 5000, logger: createMemoryLogger() },
      );
      open.push(source);
      expect(source.tools().map((t) => t.name)).toEqual(['lights_off']);
      expect((await source.tools()[0]?.run({}, signal()))?.text).toBe('The kitchen lights are off.');
      expect(seen.length).toBeGreaterThan(0);
      expect(new Set(seen)).toEqual(new Set(['Bearer hass-token-123']));
      expect(new Set(queries)).toEqual(new Set(['/mcp?key=query-secret-456']));
    } finally {
      delete process.env.MCP_TEST_HASS;
      delete process.env.MCP_TEST_QUERY;
    }
  });
});
