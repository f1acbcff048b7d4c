import { describe, expect, it } from 'vitest';
import { ServiceError, parseErrorResponse, parseRetryAfter } from '../../../src/service/service-error.js';
import { retryDelayMs, DEFAULT_RETRY_POLICY } from '../../../src/service/retry.js';

const parse = (status: number, bodyText: string, headers: Record<string, string> = {}) =>
  parseErrorResponse({ endpoint: 'chat', status, headers, bodyText });

describe('parseErrorResponse', () => {
  it('reads an OpenAI-style body', () => {
    const error = parse(
      400,
      JSON.stringify({
        error: { message: 'top_p out of range', type: 'invalid_request_error', param: 'top_p', code: 'invalid_value' },
      }),
      { 'x-request-id': 'req-1' },
    );
    expect(error).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
      code: 'invalid_value',
      param: 'top_p',
      requestId: 'req-1',
      retryable: false,
    });
    expect(error.message).toBe('chat: HTTP 400 invalid_request_error: top_p out of range (request req-1)');
  });

  it('reads an Anthropic-style body with its request_id', () => {
    const error = parse(
      529,
      JSON.stringify({
        type: 'error',
        error: { type: 'overloaded_error', message: 'Overloaded' },
        request_id: 'req_9',
      }),
    );
    expect(error).toMatchObject({ status: 529, type: 'overloaded_error', requestId: 'req_9', retryable: true });
  });

  it('reads a bare {message} body and a numeric code', () => {
    expect(parse(503, JSON.stringify({ message: 'engine overloaded', code: 1003 }))).toMatchObject({
      message: 'chat: HTTP 503 http_503: engine overloaded',
      code: '1003',
      retryable: true,
    });
  });

  it('keeps a non-JSON body as the message, collapsed and cut short', () => {
    const error = parse(502, '<html>\n  <body>Bad   Gateway</body>\n</html>');
    expect(error.message).toBe('chat: HTTP 502 http_502: <html> <body>Bad Gateway</body> </html>');
    expect(parse(500, 'x'.repeat(5000)).message.length).toBeLessThan(600);
    expect(parse(504, '').message).toMatch(/empty body/);
  });

  it('marks 429, 500, 502, 503, 504 and 529 retryable and other statuses not', () => {
    for (const status of [429, 500, 502, 503, 504, 529]) expect(parse(status, '').retryable, String(status)).toBe(true);
    for (const status of [400, 401, 403, 404, 413, 422])
      expect(parse(status, '').retryable, String(status)).toBe(false);
  });

  it('calls a 401 an authentication_error even without a body', () => {
    expect(parse(401, '')).toBeInstanceOf(ServiceError);
    expect(parse(401, '').type).toBe('authentication_error');
  });
});

describe('Retry-After', () => {
  it('reads seconds, an HTTP date and retry-after-ms', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter({ 'retry-after': '2' }, now)).toBe(2000);
    expect(parseRetryAfter({ 'retry-after': 'Thu, 01 Jan 2026 00:00:05 GMT' }, now)).toBe(5000);
    expect(parseRetryAfter({ 'retry-after-ms': '150' }, now)).toBe(150);
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({}, now)).toBeUndefined();
  });
});

describe('retryDelayMs', () => {
  it('grows exponentially with jitter between half and the full step, capped', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000 };
    expect(retryDelayMs(policy, 1, undefined, () => 0)).toBe(50);
    expect(retryDelayMs(policy, 1, undefined, () => 1)).toBe(100);
    expect(retryDelayMs(policy, 3, undefined, () => 1)).toBe(400);
    expect(retryDelayMs(policy, 10, undefined, () => 1)).toBe(1000);
  });

  it("honours the server's Retry-After, and gives up when it asks for more than the policy's patience", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: 5000 };
    expect(retryDelayMs(policy, 1, 3000)).toBe(3000);
    expect(retryDelayMs(policy, 1, 60_000)).toBeUndefined();
  });
});
