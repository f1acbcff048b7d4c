import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodePcm } from '../../../src/audio/ffmpeg.js';
import { bufferOf } from '../../../src/audio/pcm.js';
import { startTestService, type TestService } from '../../helpers/service.js';
import { tone, toneWav } from '../../helpers/audio.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());
beforeEach(() => service.sim.script.clear());

describe('transcription client against the stand-in', () => {
  it('sends multipart with every field and returns the typed Transcription object', async () => {
    service.sim.script.transcript('turn on the kitchen lights');
    const result = await service.transcription.transcribe({
      file: { name: 'utterance.wav', bytes: toneWav(1500) },
      language: 'en',
      prompt: 'previous words',
      temperature: 0.2,
    });
    expect(result).toEqual({
      text: 'turn on the kitchen lights',
      usage: {
        input_tokens: expect.any(Number),
        output_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
        type: 'tokens',
        input_token_details: { audio_tokens: expect.any(Number), text_tokens: expect.any(Number) },
      },
      model: 'Ming-3.0-asr-tiny',
      id: expect.any(String),
    });
    expect(result.usage.total_tokens).toBe(result.usage.input_tokens + result.usage.output_tokens);
    const request = service.sim.requestsTo('transcription').at(-1);
    expect(request?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(request?.body).toMatchObject({
      model: 'Ming-3.0-asr-tiny',
      language: 'en',
      prompt: 'previous words',
      response_format: 'json',
      temperature: '0.2',
      file: { name: 'utterance.wav', durationMs: 1500 },
    });
  });

  it('describes the audio it received when no transcript is scripted', async () => {
    const result = await service.transcription.transcribe({ file: { name: 'a.wav', bytes: toneWav(2000) } });
    expect(result.text).toMatch(/2\.0 seconds of audio/);
  });

  it('accepts an MP3 file', async () => {
    const mp3 = await encodePcm(bufferOf(tone(3000, 16000)), 16000, 'mp3');
    service.sim.script.transcript('from an mp3');
    const result = await service.transcription.transcribe({ file: { name: 'clip.mp3', bytes: mp3 } });
    expect(result.text).toBe('from an mp3');
    const file = (service.sim.requestsTo('transcription').at(-1)?.body as { file: { durationMs: number } }).file;
    expect(file.durationMs).toBeGreaterThan(2900);
    expect(file.durationMs).toBeLessThan(3200);
  });
});
