import type { Dispatcher } from 'undici';
import type { ServiceEndpoint } from '../contract/endpoints.js';
import type { SpeechResponseFormat } from '../contract/limits.js';
import { excerpt } from '../system/secrets.js';
import { ServiceError, headerValue } from './service-error.js';

/** What a successful response must be: its name for messages, and the media types that pass. */
export interface ContentExpectation {
  name: string;
  accepts(mediaType: string): boolean;
}

export const EXPECT_SSE: ContentExpectation = {
  name: 'text/event-stream',
  accepts: (type) => type === 'text/event-stream',
};

/** JSON bodies; plain text passes too (the body's parse decides), a web page does not. */
export const EXPECT_JSON: ContentExpectation = {
  name: 'application/json',
  accepts: (type) =>
    type === 'application/json' || type.endsWith('+json') || type === 'text/json' || type === 'text/plain',
};

const AUDIO_ALIASES: Record<SpeechResponseFormat, string[]> = {
  mp3: ['audio/mpeg', 'audio/mp3', 'audio/mpeg3'],
  opus: ['audio/opus', 'audio/ogg'],
  aac: ['audio/aac', 'audio/aacp', 'audio/x-aac', 'audio/mp4'],
  wav: ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'],
  pcm: ['audio/pcm', 'audio/l16', 'audio/x-pcm', 'audio/raw'],
};

/** Audio in the requested format (any audio when none was named); untyped bytes pass. */
export function expectAudio(format: SpeechResponseFormat | undefined): ContentExpectation {
  const types = format ? AUDIO_ALIASES[format] : undefined;
  return {
    name: types?.[0] ?? 'audio',
    accepts: (type) =>
      type === 'application/octet-stream' || (types ? types.includes(type) : type.startsWith('audio/')),
  };
}

/** The media type of a response (lower case, without parameters); undefined when none is given. */
export function mediaTypeOf(headers: Record<string, string | string[] | undefined>): string | undefined {
  const value = headerValue(headers, 'content-type');
  const type = value?.split(';')[0]?.trim().toLowerCase();
  return type || undefined;
}

const PEEK_BYTES = 4096;

/**
 * A 200 that is not what was asked for, typically a captive portal or a proxy's page: the
 * error names both types and quotes the page's title (or its first words), scrubbed of secrets.
 */
export async function unexpectedContent(
  endpoint: ServiceEndpoint,
  mediaType: string,
  expected: ContentExpectation,
  body: Dispatcher.ResponseData['body'],
): Promise<ServiceError> {
  return unexpectedContentIn(endpoint, mediaType, expected, await peek(body));
}

/** The same, from the start of a body already read. */
export function unexpectedContentIn(
  endpoint: ServiceEndpoint,
  mediaType: string,
  expected: ContentExpectation,
  start: Buffer,
): ServiceError {
  // Scrubbed before it is cut, and cut well inside what was read: no secret is split at either end.
  const text = excerpt(start.subarray(0, PEEK_BYTES).toString('utf8'), PEEK_BYTES / 2);
  const title = /<title[^>]*>([^<]*)/i.exec(text)?.[1];
  const words = (title ?? text.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ').trim();
  const quoted = words ? ` ("${excerpt(words, 120)}")` : '';
  return new ServiceError({
    endpoint,
    status: 0,
    type: 'unexpected_content_type',
    message: `the service answered with ${mediaType}, not ${expected.name}${quoted}: is a login page or proxy in the way?`,
    retryable: false,
  });
}

async function peek(body: Dispatcher.ResponseData['body']): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= PEEK_BYTES) break;
    }
  } catch {
    // What arrived is enough to name the problem.
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks);
}
