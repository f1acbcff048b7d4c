import { encodePcm } from '../audio/ffmpeg.js';
import { bufferOf, bytesFor } from '../audio/pcm.js';
import { wavHeader } from '../audio/wav-header.js';
import { SPEECH_CONTENT_TYPES, LIMITS, type SpeechResponseFormat } from '../contract/limits.js';
import { checkSpeechBody } from '../contract/rules/speech.js';
import { mayServe, readJsonBody, type SimContext } from './sim-context.js';
import { SseWriter, type Exchange } from './exchange.js';
import { estimateTokens } from './script.js';
import { renderSpeech } from './voice.js';

const DELTA_MS = 100;

/** `POST /v1/audio/speech`: real PCM for the text, as a file, SSE base64 deltas, or chunked bytes. */
export async function handleSpeech(ex: Exchange, ctx: SimContext): Promise<void> {
  const body = await readJsonBody(ex);
  if (!body) return;
  const model = String(body.model);
  if (!(await mayServe(ex, ctx, 'speech', checkSpeechBody(body, ctx.edition), model))) return;

  const streamFormat = body.stream_format as 'sse' | 'audio' | undefined;
  const format = (body.response_format as SpeechResponseFormat | undefined) ?? (streamFormat ? 'pcm' : 'wav');
  const sampleRateHz = (body.sample_rate as number | undefined) ?? LIMITS.speech.defaultSampleRateHz;
  const references = body.references as { text: string }[] | undefined;
  const pcm = bufferOf(
    await renderSpeech(
      {
        text: String(body.input),
        sampleRateHz,
        speed: (body.speed as number | undefined) ?? 1,
        volume: (body.volume as number | undefined) ?? 1,
        pitch: (body.pitch as number | undefined) ?? 1,
        voice: (body.voice as string | undefined) ?? references?.[0]?.text ?? (body.instructions as string | undefined),
      },
      ctx.voiceEngine,
    ),
  );
  const audio = await encode(pcm, sampleRateHz, format);
  if (!streamFormat) return ex.send(200, SPEECH_CONTENT_TYPES[format], audio);

  const chunkBytes = format === 'pcm' ? bytesFor(DELTA_MS, sampleRateHz) : 4096;
  const paceMs = DELTA_MS / ctx.timing.ttsRealtimeFactor;
  ex.startStream(streamFormat === 'sse' ? 'text/event-stream' : SPEECH_CONTENT_TYPES[format]);
  await ex.sleep(ctx.timing.ttsFirstByteMs);
  const out = new SseWriter(ex);
  let deltas = 0;
  for (let at = 0; at < audio.length; at += chunkBytes) {
    if (at > 0) await ex.sleep(paceMs);
    const chunk = audio.subarray(at, at + chunkBytes);
    const sent =
      streamFormat === 'sse'
        ? await out.frame(
            `data: ${JSON.stringify({ type: 'speech.audio.delta', audio: chunk.toString('base64') })}\n\n`,
          )
        : await writeRaw(ex, chunk);
    if (!sent) return;
    deltas++;
  }
  if (streamFormat === 'sse') {
    const promptTokens = estimateTokens(String(body.input));
    const usage = {
      prompt_tokens: promptTokens,
      completion_tokens: deltas * 10,
      total_tokens: promptTokens + deltas * 10,
    };
    if (!(await out.frame(`data: ${JSON.stringify({ type: 'speech.audio.done', usage })}\n\n`))) return;
  }
  ex.end();
}

async function writeRaw(ex: Exchange, chunk: Buffer): Promise<boolean> {
  await ex.write(chunk);
  return !ex.closed;
}

async function encode(pcm: Buffer, sampleRateHz: number, format: SpeechResponseFormat): Promise<Buffer> {
  if (format === 'pcm') return pcm;
  if (format === 'wav') return Buffer.concat([wavHeader(pcm.length, sampleRateHz), pcm]);
  return encodePcm(pcm, sampleRateHz, format);
}
