import type { Transcription } from '../contract/wire.js';
import { extname } from 'node:path';
import { ClientBase, badResponse, parseBodyJson, type CallSignal } from './client-base.js';
import { isRecord } from './service-error.js';
import { EXPECT_JSON } from './content-type.js';
import { multipartBody } from './multipart.js';
import { DEFAULT_MODELS } from '../contract/models.js';
import { checkTranscriptionFields } from '../contract/rules/transcription.js';

export interface AudioFile {
  /** The file name; its extension (.wav or .mp3) tells the service the format. */
  name: string;
  bytes: Uint8Array;
}

export interface TranscriptionRequest {
  file: AudioFile;
  model?: string;
  language?: string;
  /** The previous transcript's tail, as context; keep it under 60 characters. */
  prompt?: string;
  response_format?: 'json';
  temperature?: number;
}

const PATH = '/v1/audio/transcriptions';
const MIME_TYPES: Record<string, string> = { '.wav': 'audio/wav', '.mp3': 'audio/mpeg' };

/** `POST {base}/v1/audio/transcriptions` (multipart). */
export class TranscriptionClient extends ClientBase {
  async transcribe(request: TranscriptionRequest, options: CallSignal = {}): Promise<Transcription> {
    const model = request.model ?? DEFAULT_MODELS.transcription;
    this.enforce('transcription', checkTranscriptionFields({ ...request, model, file: request.file }, this.edition));
    const type = MIME_TYPES[extname(request.file.name).toLowerCase()] ?? 'application/octet-stream';
    const body = multipartBody(
      {
        model,
        language: request.language || undefined,
        prompt: request.prompt || undefined,
        response_format: request.response_format ?? 'json',
        temperature: request.temperature === undefined ? undefined : String(request.temperature),
      },
      { field: 'file', name: request.file.name, type, bytes: request.file.bytes },
    );
    const response = await this.transport.call({
      endpoint: 'transcription',
      path: PATH,
      body: body.parts,
      contentType: body.contentType,
      expect: EXPECT_JSON,
      signal: options.signal,
    });
    return readTranscription(parseBodyJson('transcription', response));
  }
}

function readTranscription(json: unknown): Transcription {
  if (!isRecord(json) || typeof json.text !== 'string') throw badResponse('transcription', 'the response has no text');
  const usage = isRecord(json.usage) ? json.usage : {};
  const num = (value: unknown): number => (typeof value === 'number' ? value : 0);
  const details = isRecord(usage.input_token_details) ? usage.input_token_details : undefined;
  return {
    text: json.text,
    usage: {
      input_tokens: num(usage.input_tokens),
      output_tokens: num(usage.output_tokens),
      total_tokens: num(usage.total_tokens),
      ...(typeof usage.type === 'string' ? { type: usage.type } : {}),
      ...(details
        ? { input_token_details: { audio_tokens: num(details.audio_tokens), text_tokens: num(details.text_tokens) } }
        : {}),
    },
    model: typeof json.model === 'string' ? json.model : '',
    id: typeof json.id === 'string' ? json.id : '',
  };
}
