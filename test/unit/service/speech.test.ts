import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWavInfo } from '../../../src/audio/wav-header.js';
import { mp3DurationMs } from '../../../src/audio/mp3-duration.js';
import { rms, samplesOf } from '../../../src/audio/pcm.js';
import { RequestValidationError } from '../../../src/contract/validation-error.js';
import { renderSynthetic } from '../../../src/sim/voice.js';
import { collect, startTestService, type TestService } from '../../helpers/service.js';
import { toneWav, wavDataUrl } from '../../helpers/audio.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ extraModels: { speech: ['chunked-tts'] } });
});
afterAll(() => service.close());

describe('speech client against the stand-in', () => {
  it('streams SSE base64 deltas of real PCM at the requested rate, then the usage', async () => {
    const events = await collect(service.speech.streamSse({ input: 'Hello there, how are you?', sample_rate: 16000 }));
    const audio = events.filter((e) => e.type === 'audio');
    const done = events.at(-1);
    expect(audio.length).toBeGreaterThan(3);
    // ~100 ms per delta at 16 kHz, 16-bit: 3200 bytes.
    expect(audio[0]?.type === 'audio' && audio[0].audio.length).toBe(3200);
    const pcm = Buffer.concat(audio.map((e) => (e.type === 'audio' ? e.audio : Buffer.alloc(0))));
    expect(pcm.length / 32000).toBeGreaterThan(0.8);
    expect(rms(samplesOf(pcm))).toBeGreaterThan(0.01);
    expect(done).toMatchObject({ type: 'done', usage: { totalTokens: expect.any(Number) } });
  });

  it('sends every parameter, with a reference clip as a WAV data URL', async () => {
    const reference = { audio: wavDataUrl(toneWav(2000)), text: 'A verbatim transcript.' };
    await collect(
      service.speech.streamSse({
        input: 'Clone me.',
        references: [reference],
        instructions: 'warm and calm',
        sample_rate: 24000,
        speed: 1.5,
        volume: 0.8,
        pitch: 1.2,
      }),
    );
    expect(service.sim.requestsTo('speech').at(-1)?.body).toEqual({
      input: 'Clone me.',
      model: 'Ming-3.0-tts',
      references: [reference],
      instructions: 'warm and calm',
      sample_rate: 24000,
      speed: 1.5,
      volume: 0.8,
      pitch: 1.2,
      stream_format: 'sse',
    });
  });

  it('returns a whole WAV file and its content type when not streaming', async () => {
    const { audio, contentType } = await service.speech.synthesize({ input: 'A file, please.', sample_rate: 8000 });
    expect(contentType).toBe('audio/wav');
    const info = readWavInfo(audio);
    expect(info.sampleRateHz).toBe(8000);
    expect(info.durationMs).toBeGreaterThan(300);
  });

  it('returns MP3 bytes with audio/mpeg', async () => {
    const { audio, contentType } = await service.speech.synthesize({
      input: 'Compressed speech.',
      response_format: 'mp3',
    });
    expect(contentType).toBe('audio/mpeg');
    expect(mp3DurationMs(audio)).toBeGreaterThan(300);
  });

  it('speaks with the voice it was switched to from the next request on', async () => {
    const switched = await startTestService({ voice: 'espeak' });
    try {
      switched.sim.voiceEngine = 'synthetic';
      const { audio } = await switched.speech.synthesize({
        input: 'Switched.',
        response_format: 'pcm',
        sample_rate: 16000,
      });
      const synthetic = renderSynthetic({
        text: 'Switched.',
        sampleRateHz: 16000,
        speed: 1,
        volume: 1,
        pitch: 1,
        voice: undefined,
      });
      expect(samplesOf(audio)).toEqual(synthetic);
    } finally {
      await switched.close();
    }
  });

  it('returns raw PCM with audio/pcm', async () => {
    const { audio, contentType } = await service.speech.synthesize({
      input: 'Raw.',
      response_format: 'pcm',
      sample_rate: 16000,
    });
    expect(contentType).toBe('audio/pcm');
    expect(audio.length % 2).toBe(0);
  });

  it('refuses stream_format audio for Ming-3.0-tts with a clear error, before sending', async () => {
    const before = service.sim.requests.length;
    const error = await collect(service.speech.streamAudio({ input: 'no' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestValidationError);
    expect((error as Error).message).toMatch(/Ming-3.0-tts supports only stream_format "sse"/);
    expect(service.sim.requests.length).toBe(before);
  });

  it('streams chunked raw bytes for a model that supports stream_format audio', async () => {
    const chunks = await collect(
      service.speech.streamAudio({ input: 'Chunked bytes.', model: 'chunked-tts', sample_rate: 16000 }),
    );
    expect(chunks.length).toBeGreaterThan(1);
    expect(Buffer.concat(chunks).length).toBeGreaterThan(16000);
  });
});
