import { extname } from 'node:path';
import { Response } from 'undici';
import { readWavInfo } from '../audio/wav-header.js';
import { rms, samplesOf } from '../audio/pcm.js';
import { audioDurationMs, checkTranscriptionFields } from '../contract/rules/transcription.js';
import { mayServe, type SimContext } from './sim-context.js';
import type { Exchange } from './exchange.js';
import { estimateTokens } from './script.js';

const KNOWN_FIELDS = new Set(['file', 'model', 'language', 'prompt', 'response_format', 'temperature']);

/** `POST /v1/audio/transcriptions` (multipart): scripted transcripts in order, else a description of the audio. */
export async function handleTranscription(ex: Exchange, ctx: SimContext): Promise<void> {
  const contentType = ex.req.headers['content-type'] ?? '';
  const raw = await ex.readBody();
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    return ex.sendError(415, 'invalid_request_error', 'Content-Type must be multipart/form-data');
  }
  let form: Awaited<ReturnType<Response['formData']>>;
  try {
    form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
  } catch {
    return ex.sendError(400, 'invalid_request_error', 'the multipart body could not be parsed');
  }
  const text = (name: string): string | undefined => {
    const value = form.get(name);
    return typeof value === 'string' ? value : undefined;
  };
  const fileEntry = form.get('file');
  const file =
    fileEntry && typeof fileEntry !== 'string'
      ? { name: fileEntry.name, bytes: new Uint8Array(await fileEntry.arrayBuffer()) }
      : undefined;
  const fields = {
    model: text('model'),
    file,
    language: text('language'),
    prompt: text('prompt'),
    response_format: text('response_format'),
    temperature: text('temperature'),
    otherFields: [...new Set(form.keys())].filter((k) => !KNOWN_FIELDS.has(k)),
  };
  const durationMs = file ? audioDurationMs(extname(file.name).toLowerCase(), file.bytes) : undefined;
  ex.record.body = { ...fields, file: file && { name: file.name, bytes: file.bytes.length, durationMs } };

  const model = String(fields.model);
  if (!(await mayServe(ex, ctx, 'transcription', checkTranscriptionFields(fields, ctx.edition), model))) return;
  await ex.sleep(ctx.timing.transcriptionDelayMs);

  const transcript = ctx.script.takeTranscript(wavSamples(file?.bytes)) ?? describeAudio(file?.bytes, durationMs ?? 0);
  const audioTokens = Math.ceil((durationMs ?? 0) / 40);
  const textTokens = fields.prompt ? estimateTokens(fields.prompt) : 0;
  const outputTokens = estimateTokens(transcript);
  ex.sendJson(200, {
    text: transcript,
    usage: {
      input_tokens: audioTokens + textTokens,
      output_tokens: outputTokens,
      total_tokens: audioTokens + textTokens + outputTokens,
      type: 'tokens',
      input_token_details: { audio_tokens: audioTokens, text_tokens: textTokens },
    },
    model,
    id: `trans_sim_${ex.record.seq}`,
  });
}

/** The samples of a 16-bit mono WAV, to tell one utterance from the next; undefined for anything else. */
function wavSamples(bytes: Uint8Array | undefined): Int16Array | undefined {
  if (!bytes) return undefined;
  try {
    const info = readWavInfo(bytes);
    if (info.bitsPerSample !== 16 || info.channels !== 1) return undefined;
    return samplesOf(Buffer.from(bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes)));
  } catch {
    return undefined;
  }
}

/** What the stand-in can honestly say about audio it cannot understand: its length and how much is voiced. */
export function describeAudio(bytes: Uint8Array | undefined, durationMs: number): string {
  const seconds = (durationMs / 1000).toFixed(1);
  if (!bytes) return `(${seconds} seconds of audio)`;
  try {
    const info = readWavInfo(bytes);
    if (info.bitsPerSample !== 16 || info.channels !== 1) return `(${seconds} seconds of audio)`;
    const samples = samplesOf(Buffer.from(bytes.subarray(info.dataOffset, info.dataOffset + info.dataBytes)));
    const frame = Math.round(info.sampleRateHz * 0.03);
    let voiced = 0;
    for (let at = 0; at + frame <= samples.length; at += frame) if (rms(samples, at, at + frame) > 0.01) voiced++;
    return `(${seconds} seconds of audio, ${((voiced * 30) / 1000).toFixed(1)} seconds of it voiced)`;
  } catch {
    return `(${seconds} seconds of audio)`;
  }
}
