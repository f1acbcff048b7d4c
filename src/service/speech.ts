import { ClientBase, badResponse, truncatedStream, type CallSignal } from './client-base.js';
import { ServiceError, headerValue, isRecord } from './errors.js';
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
  async synthesize(request: SpeechRequest, options: CallSignal = {}): Promise<{ audio: Buffer; contentType: string }> {
    const body = this.body(request, undefined);
    const response = await this.transport.call({
      endpoint: 'speech',
      path: PATH,
      body: JSON.stringify(body),
      contentType: 'application/json',
      accept: '*/*',
      signal: options.signal,
    });
    const contentType = headerValue(response.headers, 'content-type') ?? 'application/octet-stream';
    return { audio: response.body, contentType };
  }

  /** `stream_format: sse`: decoded audio chunks (PCM unless another format is asked for) as they arrive, then usage. */
  async *streamSse(request: SpeechRequest, options: CallSignal = {}): AsyncGenerator<SpeechStreamEvent> {
    const response = await this.openStream(this.body(request, 'sse'), 'text/event-stream', options.signal);
    let done = false;
    for await (const event of decodeSse(response.chunks)) {
      if (done) continue;
      const payload = parsePayload(event.data);
      if (payload.type === 'speech.audio.delta') {
        if (typeof payload.audio !== 'string') throw badResponse('speech', 'an audio delta without audio');
        yield { type: 'audio', audio: Buffer.from(payload.audio, 'base64') };
      } else if (payload.type === 'speech.audio.done') {
        done = true;
        yield { type: 'done', usage: isRecord(payload.usage) ? readSpeechUsage(payload.usage) : undefined };
      } else if (isRecord(payload.error)) {
        throw new ServiceError({
          endpoint: 'speech',
          status: 0,
          type: typeof payload.error.type === 'string' ? payload.error.type : 'stream_error',
          message: typeof payload.error.message === 'string' ? payload.error.message : 'error event mid-stream',
          retryable: false,
        });
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
    const response = await this.openStream(this.body(request, 'audio'), '*/*', options.signal);
    yield* response.chunks;
  }

  private openStream(body: Record<string, unknown>, accept: string, signal: AbortSignal | undefined) {
    return this.transport.stream({
      endpoint: 'speech',
      path: PATH,
      body: JSON.stringify(body),
      contentType: 'application/json',
      accept,
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
    message: `an event's data is not a JSON object: ${data.slice(0, 80)}`,
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
