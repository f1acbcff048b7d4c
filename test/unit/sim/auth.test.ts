import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { startSim, type SimServer } from '../../../src/sim/server.js';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ timing: { ttftMs: 0 } });
});
afterAll(() => sim.close());

const chatBody = JSON.stringify({ model: 'Ling-3.0-flash', messages: [{ role: 'user', content: 'hi' }] });

async function post(
  path: string,
  headers: Record<string, string>,
  body = chatBody,
): Promise<{ status: number; json: unknown }> {
  const response = await request(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return { status: response.statusCode, json: await response.body.json() };
}

describe('stand-in auth rules', () => {
  it.each(['/v1/chat/completions', '/v1/audio/speech', '/v1/audio/transcriptions'])(
    '%s answers 401 without a key and with a wrong one, in the OpenAI error shape',
    async (path) => {
      expect((await post(path, {})).status).toBe(401);
      const wrong = await post(path, { authorization: 'Bearer wrong-key' });
      expect(wrong.status).toBe(401);
      expect(wrong.json).toMatchObject({ error: { type: 'authentication_error', message: expect.any(String) } });
    },
  );

  it('chat does not take x-api-key', async () => {
    expect((await post('/v1/chat/completions', { 'x-api-key': sim.apiKey })).status).toBe(401);
  });

  it('the messages-style endpoint takes exactly one of Bearer and x-api-key', async () => {
    const path = '/anthropic/v1/messages';
    expect((await post(path, { authorization: `Bearer ${sim.apiKey}` })).status).toBe(200);
    expect((await post(path, { 'x-api-key': sim.apiKey })).status).toBe(200);
    const both = await post(path, { authorization: `Bearer ${sim.apiKey}`, 'x-api-key': sim.apiKey });
    expect(both.status).toBe(400);
    expect(both.json).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error' },
      request_id: expect.any(String),
    });
    const none = await post(path, {});
    expect(none.status).toBe(401);
    expect(none.json).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('answers unknown paths with 404 and bad JSON with 400', async () => {
    expect((await post('/v1/embeddings', { authorization: `Bearer ${sim.apiKey}` })).status).toBe(404);
    const bad = await post('/v1/chat/completions', { authorization: `Bearer ${sim.apiKey}` }, '{not json');
    expect(bad.status).toBe(400);
  });
});
