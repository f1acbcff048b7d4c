import type { IncomingHttpHeaders } from 'node:http';
import { timingSafeEqual } from 'node:crypto';

export type AuthVerdict = { ok: true } | { ok: false; status: 400 | 401; message: string };

function sameKey(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

function bearer(headers: IncomingHttpHeaders): string | undefined {
  const value = headers.authorization;
  if (value === undefined) return undefined;
  const match = /^Bearer\s+(.+)$/i.exec(value);
  return match ? (match[1] ?? '').trim() : '';
}

/** Chat, speech and transcription: `Authorization: Bearer <key>` is required. */
export function checkBearer(headers: IncomingHttpHeaders, key: string): AuthVerdict {
  const given = bearer(headers);
  if (given === undefined) return { ok: false, status: 401, message: 'missing Authorization: Bearer header' };
  if (!sameKey(given, key)) return { ok: false, status: 401, message: 'invalid API key' };
  return { ok: true };
}

/** Messages-style: exactly one of `Authorization: Bearer` and `x-api-key`; both at once is a 400. */
export function checkMessagesAuth(headers: IncomingHttpHeaders, key: string): AuthVerdict {
  const viaBearer = bearer(headers);
  const viaHeader = headers['x-api-key'];
  if (viaBearer !== undefined && viaHeader !== undefined) {
    return { ok: false, status: 400, message: 'send either Authorization: Bearer or x-api-key, not both' };
  }
  const given = viaBearer ?? (Array.isArray(viaHeader) ? viaHeader[0] : viaHeader);
  if (given === undefined)
    return { ok: false, status: 401, message: 'missing x-api-key or Authorization: Bearer header' };
  if (!sameKey(given, key)) return { ok: false, status: 401, message: 'invalid x-api-key' };
  return { ok: true };
}
