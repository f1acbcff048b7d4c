import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChatCompletionsClient } from '../../../src/service/chat.js';
import { ServiceError } from '../../../src/service/service-error.js';
import { Transport } from '../../../src/service/http.js';
import { createMemoryLogger } from '../../../src/system/logger.js';
import { collect, startTestService, type TestService } from '../../helpers/service.js';

const model = 'Ling-3.0-flash';
const ask = { model, messages: [{ role: 'user' as const, content: 'hello' }] };

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());
beforeEach(() => {
  service.sim.script.clear();
  service.sim.requests.length = 0;
});

describe('retries', () => {
  it('retries a 503 before the first byte and completes the stream', async () => {
    service.sim.script.fault({ endpoint: 'chat', status: 503 }).reply('Recovered.');
    const events = await collect(service.chat.stream(ask));
    expect(
      events
        .filter((e) => e.type === 'text')
        .map((e) => (e.type === 'text' ? e.text : ''))
        .join(''),
    ).toBe('Recovered.');
    expect(service.sim.requestsTo('chat').map((r) => r.status)).toEqual([503, 200]);
  });

  it("waits as long as a 429's Retry-After asks", async () => {
    service.sim.script.fault({ endpoint: 'chat', status: 429, retryAfterS: 0.3 });
    const started = performance.now();
    await service.chat.create(ask);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(service.sim.requestsTo('chat')).toHaveLength(2);
  });

  it('retries 529 on the messages-style endpoint and 500 on speech', async () => {
    service.sim.script.fault({ endpoint: 'messages', status: 529 }, { endpoint: 'speech', status: 500 });
    await service.messages.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    await collect(service.speech.streamSse({ input: 'Retry me.' }));
    expect(service.sim.requests.map((r) => r.status)).toEqual([529, 200, 500, 200]);
  });

  it('gives up after the policy allows, with the last error', async () => {
    service.sim.script.fault(...Array.from({ length: 4 }, () => ({ endpoint: 'chat' as const, status: 502 })));
    await expect(service.chat.create(ask)).rejects.toMatchObject({ status: 502, retryable: true });
    expect(service.sim.requestsTo('chat')).toHaveLength(4);
  });

  it('does not retry a 400', async () => {
    service.sim.script.fault({ endpoint: 'chat', status: 400 });
    await expect(service.chat.create(ask)).rejects.toMatchObject({ status: 400 });
    expect(service.sim.requestsTo('chat')).toHaveLength(1);
  });

  it('never retries after the first streamed byte: half a reply is not replayed', async () => {
    service.sim.script.fault({ endpoint: 'chat', dropAfterEvents: 4 });
    await expect(collect(service.chat.stream(ask))).rejects.toMatchObject({
      type: 'stream_interrupted',
      retryable: false,
    });
    expect(service.sim.requestsTo('chat')).toHaveLength(1);
  });

  it('retries a connection dropped before the first byte', async () => {
    service.sim.script.fault({ endpoint: 'chat', dropAfterEvents: 0 });
    const events = await collect(service.chat.stream(ask));
    expect(events.at(-1)?.type).toBe('done');
    expect(service.sim.requestsTo('chat').map((r) => r.outcome)).toEqual(['dropped', 'completed']);
  });

  it('retries a refused connection, then reports it as a connection_error', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const logger = createMemoryLogger();
    const transport = new Transport({
      baseUrl: `http://127.0.0.1:${port}`,
      apiKey: 'k-123456',
      logger,
      retry: { baseDelayMs: 1, maxRetries: 2 },
    });
    const error = await new ChatCompletionsClient({ transport }).create(ask).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ServiceError', type: 'connection_error', status: 0 });
    expect(logger.lines.filter((l) => l.event === 'service.retry')).toHaveLength(2);
    await transport.close();
  });
});

describe('cancellation', () => {
  it('an abort mid-stream closes the connection, and the server sees it closed', async () => {
    service.sim.script.reply({ text: 'word '.repeat(200), tokensPerSecond: 100 });
    const controller = new AbortController();
    let received = 0;
    const run = async (): Promise<void> => {
      for await (const event of service.chat.stream(ask, { signal: controller.signal })) {
        if (event.type === 'text' && ++received === 3) controller.abort();
      }
    };
    await expect(run()).rejects.toMatchObject({ name: 'AbortError' });
    const record = service.sim.requestsTo('chat')[0];
    expect(await record?.ended).toBe('client-closed');
    expect(record?.events).toBeLessThan(20);
  });

  it('breaking out of the loop closes the connection too', async () => {
    service.sim.script.reply({ text: 'word '.repeat(200), tokensPerSecond: 100 });
    for await (const event of service.chat.stream(ask)) if (event.type === 'text') break;
    expect(await service.sim.requestsTo('chat')[0]?.ended).toBe('client-closed');
  });

  it('an abort while a whole call waits for its answer closes the connection', async () => {
    service.sim.script.fault({ endpoint: 'chat', delayMs: 2000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    await expect(service.chat.create(ask, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(await service.sim.requestsTo('chat')[0]?.ended).toBe('client-closed');
  });

  it('a whole call aborted before it is sent is never sent', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(service.chat.create(ask, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(service.sim.requestsTo('chat')).toHaveLength(0);
  });

  it('an abort during a retry wait ends at once', async () => {
    service.sim.script.fault({ endpoint: 'chat', status: 503, retryAfterS: 5 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = performance.now();
    await expect(service.chat.create(ask, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('timeouts and slow streams', () => {
  let slow: TestService;
  beforeAll(async () => {
    slow = await startTestService({}, { timeouts: { requestMs: 300, streamIdleMs: 200 } });
  });
  afterAll(() => slow.close());

  it('a non-streaming call times out with a clear error', async () => {
    slow.sim.script.fault({ endpoint: 'chat', delayMs: 1000 });
    const error = await slow.chat.create(ask).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ServiceError', type: 'timeout' });
    expect((error as Error).message).toMatch(/no complete response within 300 ms/);
  });

  it('a stream that falls silent mid-way fails with stream_idle_timeout', async () => {
    slow.sim.script.fault({ endpoint: 'chat', dripBytes: 40, dripIntervalMs: 500 });
    await expect(collect(slow.chat.stream(ask))).rejects.toMatchObject({ type: 'stream_idle_timeout' });
  });

  it('a slow drip within the idle limit still decodes exactly', async () => {
    // Content (not every byte) is what keeps a stream alive: give the dripped events time to complete.
    const drip = await startTestService({}, { timeouts: { streamIdleMs: 5000 } });
    try {
      drip.sim.script
        .fault({ endpoint: 'chat', dripBytes: 7, dripIntervalMs: 1 })
        .reply('Dripped, 你好, byte by byte.');
      const text = (await collect(drip.chat.stream(ask))).map((e) => (e.type === 'text' ? e.text : '')).join('');
      expect(text).toBe('Dripped, 你好, byte by byte.');
    } finally {
      await drip.close();
    }
  });
});

describe('the API key', () => {
  let echo: Server;
  let url: string;
  const key = 'sk-never-print-me-123456';
  beforeAll(async () => {
    // A server that misbehaves by echoing the Authorization header back in its error.
    echo = createServer((req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ error: { message: `bad auth header: ${req.headers.authorization}`, type: 'api_error' } }),
      );
    });
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  });
  afterEach(() => undefined);
  afterAll(() => new Promise<void>((resolve) => echo.close(() => resolve())));

  it('never appears in an error message or a log line, even when the server echoes it', async () => {
    const logger = createMemoryLogger();
    const transport = new Transport({ baseUrl: url, apiKey: key, logger, retry: { baseDelayMs: 1, maxRetries: 1 } });
    const error = (await new ChatCompletionsClient({ transport, logger })
      .create(ask)
      .catch((e: unknown) => e)) as ServiceError;
    expect(error).toBeInstanceOf(ServiceError);
    expect(error.message).toContain('Bearer ***');
    expect(error.message).not.toContain(key);
    logger.error('turn.failed', { error, note: `echo ${key}` });
    expect(JSON.stringify(logger.lines)).not.toContain(key);
    await transport.close();
  });

  it('is sent in a header and nowhere else', async () => {
    await service.chat.create(ask);
    const record = service.sim.requestsTo('chat')[0];
    expect(record?.headers.authorization).toBe('(present)');
    expect(record?.path).not.toContain(service.sim.apiKey);
    expect(JSON.stringify(record?.body)).not.toContain(service.sim.apiKey);
  });
});

describe('warming', () => {
  it('opens connections before a turn needs them, without the key, and the next request uses one', async () => {
    let connections = 0;
    const seen: { method: string; keyed: boolean }[] = [];
    const server: Server = createServer((req, res) => {
      seen.push({ method: req.method ?? '', keyed: 'authorization' in req.headers || 'x-api-key' in req.headers });
      req.resume();
      req.on('end', () => {
        res.writeHead(req.method === 'OPTIONS' ? 404 : 200, { 'content-type': 'application/json' });
        res.end(req.method === 'OPTIONS' ? undefined : '{}');
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const transport = new Transport({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-warm-test' });
    try {
      await transport.warm(2);
      expect(connections).toBe(2);
      expect(seen).toEqual([
        { method: 'OPTIONS', keyed: false },
        { method: 'OPTIONS', keyed: false },
      ]);
      await transport.warm(2);
      expect(seen).toHaveLength(2);
      await transport.call({ endpoint: 'chat', path: '/chat/completions', body: '{}' });
      expect(connections).toBe(2);
      expect(seen.at(-1)).toEqual({ method: 'POST', keyed: true });
    } finally {
      await transport.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
