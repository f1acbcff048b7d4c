import { ClientBase, badResponse, truncatedStream, type CallSignal } from './client-base.js';
import { ServiceError, headerValue, isRecord, streamErrorEvent } from './service-error.js';
import { EXPECT_SSE, expectAudio, type ContentExpectation } from './content-type.js';
import { excerpt } from '../system/secrets.js';
import { RequestValidationError } from '../contract/validation-error.js';
import type { SpeechRequest } from '../contract/wire.js';
import { DEFAULT_MODELS, speechStreamFormats } from '../contract/models.js';
import { checkSpeechBody } from '../contract/rules/speech.js';
import { decodeSse } from './sse.js';

export interface SpeechUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export type SpeechStreamEvent = { type: 'audio'; audio: Buffer } | { type: 'done'; usage: SpeechUsage | undefined };

const PATH = '/v1/audio/speech';

/** `POST {base}/v1/audio/speech`: a whole file, an SSE stream of PCM deltas, or chunked bytes. */
export class SpeechClient extends ClientBase {
  /** The whole file; a response that is not audio of the requested format (a web page) fails. */
  async synthesize(request: SpeechRequest, options: CallSignal = {}): Promise<{ audio: Buffer; contentType: string }> {
    const body = this.body(request, undefined);
    const response = await this.transport.call({
      endpoint: 'speech',
      path: PATH,
      body: JSON.stringify(body),
      contentType: 'application/json',
      accept: '*/*',
      expect: expectAudio(request.response_format ?? 'wav'),
      signal: options.signal,
    });
    const contentType = headerValue(response.headers, 'content-type') ?? 'application/octet-stream';
    return { audio: response.body, contentType };
  }

  /** `stream_format: sse`: decoded audio chunks (PCM unless another format is asked for) as they arrive, then usage. */
  async *streamSse(request: SpeechRequest, options: CallSignal = {}): AsyncGenerator<SpeechStreamEvent> {
    const response = await this.openStream(this.body(request, 'sse'), 'text/event-stream', EXPECT_SSE, options.signal);
    let done = false;
    for await (const event of decodeSse(response.chunks)) {
      if (done) continue;
      const payload = parsePayload(event.data);
      if (payload.type === 'speech.audio.delta') {
        if (typeof payload.audio !== 'string') throw badResponse('speech', 'an audio delta without audio');
        const audio = Buffer.from(payload.audio, 'base64');
        if (audio.length > 0) response.progress();
        yield { type: 'audio', audio };
      } else if (payload.type === 'speech.audio.done') {
        response.progress();
        done = true;
        yield { type: 'done', usage: isRecord(payload.usage) ? readSpeechUsage(payload.usage) : undefined };
      } else if (isRecord(payload.error)) {
        throw streamErrorEvent('speech', payload.error, 'stream_error');
      }
    }
    if (!done) throw truncatedStream('speech', 'speech.audio.done');
  }

  /** `stream_format: audio`: raw chunked bytes. Refused for models that only stream SSE. */
  async *streamAudio(request: SpeechRequest, options: CallSignal = {}): AsyncGenerator<Buffer> {
    const model = request.model ?? DEFAULT_MODELS.speech;
    if (!speechStreamFormats(model).includes('audio')) {
      throw new RequestValidationError('stream_format', `${model} supports only stream_format "sse"`, '"audio"');
    }
    const expected = expectAudio(request.response_format ?? 'pcm');
    const response = await this.openStream(this.body(request, 'audio'), '*/*', expected, options.signal);
    for await (const chunk of response.chunks) {
      if (chunk.length > 0) response.progress();
      yield chunk;
    }
  }

  private openStream(
    body: Record<string, unknown>,
    accept: string,
    expect: ContentExpectation,
    signal: AbortSignal | undefined,
  ) {
    return this.transport.stream({
      endpoint: 'speech',
      path: PATH,
      body: JSON.stringify(body),
      contentType: 'application/json',
      accept,
      expect,
      signal,
    });
  }

  private body(request: SpeechRequest, streamFormat: 'sse' | 'audio' | undefined): Record<string, unknown> {
    const body: Record<string, unknown> = { ...request, model: request.model ?? DEFAULT_MODELS.speech };
    if (streamFormat) body.stream_format = streamFormat;
    this.enforce('speech', checkSpeechBody(body, this.edition));
    return body;
  }
}

function parsePayload(data: string): Record<string, unknown> {
  try {
    const json: unknown = JSON.parse(data);
    if (isRecord(json)) return json;
  } catch {
    // reported below
  }
  throw new ServiceError({
    endpoint: 'speech',
    status: 0,
    type: 'malformed_stream',
    message: `an event's data is not a JSON object: ${excerpt(data, 80)}`,
    retryable: false,
  });
}

function readSpeechUsage(usage: Record<string, unknown>): SpeechUsage {
  const num = (key: string): number => (typeof usage[key] === 'number' ? usage[key] : 0);
  return {
    promptTokens: num('prompt_tokens'),
    completionTokens: num('completion_tokens'),
    totalTokens: num('total_tokens'),
  };
}
