import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { RequestValidationError } from '../../../src/contract/validation-error.js';
import { checkChatBody } from '../../../src/contract/rules/chat.js';
import { checkMessagesBody } from '../../../src/contract/rules/messages.js';
import { checkSpeechBody } from '../../../src/contract/rules/speech.js';
import { checkTranscriptionFields } from '../../../src/contract/rules/transcription.js';
import { collect, startTestService, type TestService } from '../../helpers/service.js';
import { toneWav, wavDataUrl } from '../../helpers/audio.js';

const user = [{ role: 'user', content: 'hi' }];
const chat = (extra: object) => checkChatBody({ model: 'Ling-3.0-flash', messages: user, ...extra }, 'A');
const messages = (extra: object) => checkMessagesBody({ model: 'Ling-3.0-flash', messages: user, ...extra }, 'A');
const speech = (extra: object) => checkSpeechBody({ model: 'Ming-3.0-tts', input: 'hello', ...extra }, 'A');
const fieldsOf = (check: { errors: RequestValidationError[] }) => check.errors.map((e) => e.field);

describe('generation limits', () => {
  it.each([
    [-0.01, false],
    [0, true],
    [1, true],
    [1.01, false],
  ])('temperature %s accepted: %s (both endpoints)', (temperature, ok) => {
    expect(fieldsOf(chat({ temperature })).includes('temperature')).toBe(!ok);
    expect(fieldsOf(messages({ temperature })).includes('temperature')).toBe(!ok);
  });

  it.each([
    [0, false],
    [1e-9, true],
    [1, true],
    [1.0001, false],
  ])('top_p %s accepted: %s (zero is outside the half-open range)', (top_p, ok) => {
    expect(fieldsOf(chat({ top_p })).includes('top_p')).toBe(!ok);
    expect(fieldsOf(messages({ top_p })).includes('top_p')).toBe(!ok);
  });

  it('names the field and the limit in the message', () => {
    expect(chat({ temperature: 2 }).errors[0]?.message).toBe('temperature: must be a number in [0, 1] (got 2)');
    expect(chat({ top_p: 0 }).errors[0]?.message).toBe('top_p: must be a number in (0, 1] (got 0)');
  });

  it('refuses roles outside each endpoint, including system in the messages list', () => {
    expect(fieldsOf(chat({ messages: [{ role: 'function', content: 'x' }] }))).toEqual(['messages[0].role']);
    // The tool role, beyond the published three, is taken only as the answer to a call.
    expect(fieldsOf(chat({ messages: [{ role: 'tool', content: 'x' }] }))).toEqual(['messages[0].tool_call_id']);
    expect(fieldsOf(messages({ messages: [{ role: 'system', content: 'x' }] }))).toEqual(['messages[0].role']);
    expect(fieldsOf(chat({ messages: [] }))).toEqual(['messages']);
  });

  it('checks effort and thinking enums, and warns where they have no effect', () => {
    expect(fieldsOf(chat({ reasoning: { effort: 'low' } }))).toEqual(['reasoning.effort']);
    expect(fieldsOf(messages({ output_config: { effort: 'max' } }))).toEqual(['output_config.effort']);
    expect(fieldsOf(chat({ thinking: { type: 'sometimes' } }))).toEqual(['thinking.type']);
    expect(chat({ reasoning: { effort: 'high' } }).warnings[0]).toMatch(/no effect on Ling-3.0-flash/);
    const thinking = (type: string, edition: 'A' | 'B') =>
      checkChatBody({ model: 'Ling-3.0-tiny', messages: user, thinking: { type } }, edition).warnings;
    expect(thinking('enabled', 'A')).toEqual(['thinking has no effect on Ling-3.0-tiny in edition A']);
    expect(thinking('enabled', 'B')).toEqual([]);
    // Turned off for a model that does not think (hark's default, whatever the model): nothing to warn of.
    expect(thinking('disabled', 'A')).toEqual([]);
    const viaMessages = (type: string) =>
      checkMessagesBody({ model: 'Ling-3.0-flash-VL', max_tokens: 9, messages: user, thinking: { type } }, 'A');
    expect(viaMessages('disabled').warnings).toEqual([]);
    expect(viaMessages('enabled').warnings).toEqual(['thinking has no effect on Ling-3.0-flash-VL in edition A']);
  });

  it('refuses media blocks a known model does not accept, and allows them for unknown models', () => {
    const image = [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } }] }];
    expect(chat({ messages: image }).errors[0]?.message).toMatch(/accepted only by Ling-3.0-flash-VL/);
    expect(checkChatBody({ model: 'Ling-3.0-flash-VL', messages: image }, 'A').errors).toEqual([]);
    expect(checkChatBody({ model: 'Ling-9-future', messages: image }, 'A').errors).toEqual([]);
    const audio = [{ role: 'user', content: [{ type: 'audio_url', audio_url: { url: wavDataUrl(toneWav(500)) } }] }];
    expect(checkChatBody({ model: 'Ming-3.0-audio-flash', messages: audio }, 'B').errors).toEqual([]);
    expect(checkChatBody({ model: 'Ling-3.0-flash-VL', messages: audio }, 'B').errors).toHaveLength(1);
  });

  it('takes audio for a model that hears only as WAV or MP3 within 30 s and 10 MB', () => {
    const audio = (url: string) =>
      checkChatBody(
        {
          model: 'Ming-3.0-audio-flash',
          messages: [{ role: 'user', content: [{ type: 'audio_url', audio_url: { url } }] }],
        },
        'B',
      ).errors.map((e) => e.message);
    expect(audio(wavDataUrl(toneWav(2000)))).toEqual([]);
    expect(audio(wavDataUrl(toneWav(30_500)))[0]).toMatch(/at most 30 s of audio \(got 30\.500 s\)/);
    expect(audio('data:image/png;base64,AAAA')[0]).toMatch(/media type/);
    expect(audio('data:audio/wav;base64,AAAA')[0]).toMatch(/not readable WAV audio/);
  });

  it('warns about an unknown model instead of refusing it', () => {
    const check = checkChatBody({ model: 'Ling-4.0-new', messages: user }, 'A');
    expect(check.errors).toEqual([]);
    expect(check.warnings[0]).toMatch(/Ling-4.0-new is not in edition A's chat list/);
  });

  it('checks tool_choice against the tools offered', () => {
    const tools = [{ name: 'clock', input_schema: { type: 'object' } }];
    expect(messages({ tools, tool_choice: { type: 'tool', name: 'clock' } }).errors).toEqual([]);
    expect(fieldsOf(messages({ tools, tool_choice: { type: 'tool', name: 'radio' } }))).toEqual(['tool_choice.name']);
    expect(fieldsOf(messages({ tools, tool_choice: { type: 'tool' } }))).toEqual(['tool_choice.name']);
    expect(fieldsOf(messages({ tool_choice: { type: 'sometimes' } }))).toEqual(['tool_choice.type']);
    expect(fieldsOf(messages({ tool_choice: { type: 'any' } }))).toEqual(['tool_choice']);
    expect(fieldsOf(messages({ max_tokens: 0 }))).toEqual(['max_tokens']);
    expect(fieldsOf(messages({ stop_sequences: ['ok', ''] }))).toEqual(['stop_sequences']);
  });
});

describe('speech limits', () => {
  it.each([
    ['an empty input', '', false],
    ['one character', 'a', true],
    ['2048 ASCII characters', 'a'.repeat(2048), true],
    ['2049 ASCII characters', 'a'.repeat(2049), false],
    ['2048 Chinese characters', '好'.repeat(2048), true],
    // 2048 emoji are 4096 UTF-16 units but 2048 characters.
    ['2048 emoji', '🙂'.repeat(2048), true],
  ])('%s: accepted %s', (_label, input, ok) => {
    expect(fieldsOf(speech({ input }))).toEqual(ok ? [] : ['input']);
  });

  it('refuses a null input', () => {
    expect(speech({ input: null }).errors[0]?.message).toMatch(/not null or empty/);
  });

  it.each([8000, 16000, 22050, 24000])('accepts sample_rate %i', (sample_rate) => {
    expect(speech({ sample_rate }).errors).toEqual([]);
  });

  it.each([44100, 11025, '16000'])('refuses sample_rate %s', (sample_rate) => {
    expect(fieldsOf(speech({ sample_rate }))).toEqual(['sample_rate']);
  });

  it.each([
    ['speed', 0.25, 4, 0.24, 4.01],
    ['volume', 0.5, 2, 0.49, 2.01],
    ['pitch', 0.5, 2, 0.49, 2.01],
  ])('%s accepts [%s, %s] and refuses %s and %s', (field, low, high, below, above) => {
    expect(speech({ [field]: low }).errors).toEqual([]);
    expect(speech({ [field]: high }).errors).toEqual([]);
    expect(fieldsOf(speech({ [field]: below }))).toEqual([field]);
    expect(fieldsOf(speech({ [field]: above }))).toEqual([field]);
  });

  it('checks response_format and stream_format enums', () => {
    expect(fieldsOf(speech({ response_format: 'flac' }))).toEqual(['response_format']);
    expect(fieldsOf(speech({ stream_format: 'websocket' }))).toEqual(['stream_format']);
    expect(speech({ stream_format: 'audio' }).errors[0]?.message).toMatch(/supports only sse/);
  });

  it('allows one WAV reference of at most 30 s with its transcript', () => {
    const ok = { audio: wavDataUrl(toneWav(30_000, 8000)), text: 'words' };
    expect(speech({ references: [ok] }).errors).toEqual([]);
    expect(fieldsOf(speech({ references: [ok, ok] }))).toEqual(['references']);
    expect(fieldsOf(speech({ references: [{ audio: ok.audio }] }))).toEqual(['references[0].text']);
    const long = { audio: wavDataUrl(toneWav(30_100, 8000)), text: 'words' };
    expect(speech({ references: [long] }).errors[0]?.message).toMatch(/at most 30 s \(got 30\.1 s\)/);
    const barely = { audio: wavDataUrl(toneWav(30_005, 8000)), text: 'words' };
    expect(speech({ references: [barely] }).errors[0]?.message).toMatch(/at most 30 s \(got 30\.005 s\)/);
    const mp3 = { audio: 'data:audio/mpeg;base64,AAAA', text: 'words' };
    expect(speech({ references: [mp3] }).errors[0]?.message).toMatch(/must be WAV/);
  });

  it('refuses a reference whose data URL is over 10 MB', () => {
    // 28 s of 24 kHz stereo-sized mono at 16 bits would fit the time limit; make the bytes large instead.
    const big = { audio: `data:audio/wav;base64,${'A'.repeat(10_000_001)}`, text: 'words' };
    expect(speech({ references: [big] }).errors[0]?.message).toMatch(/at most 10000000 bytes/);
  });
});

describe('transcription limits', () => {
  const check = (fields: object) =>
    checkTranscriptionFields(
      { model: 'Ming-3.0-asr-tiny', file: { name: 'a.wav', bytes: toneWav(1000) }, ...fields },
      'A',
    );

  it('takes .wav and .mp3 only', () => {
    expect(check({}).errors).toEqual([]);
    expect(check({ file: { name: 'a.flac', bytes: toneWav(1000) } }).errors[0]?.message).toMatch(/\.wav or \.mp3/);
    expect(fieldsOf(check({ file: undefined }))).toEqual(['file']);
  });

  it('refuses a file over 30 s or 10 MB', () => {
    expect(check({ file: { name: 'a.wav', bytes: toneWav(30_000, 8000) } }).errors).toEqual([]);
    expect(check({ file: { name: 'a.wav', bytes: toneWav(30_050, 8000) } }).errors[0]?.message).toMatch(/at most 30 s/);
    // Enough digits to show why it failed: 30.001 s is over, "30.0 s" would not say so.
    expect(check({ file: { name: 'a.wav', bytes: toneWav(30_001, 8000) } }).errors[0]?.message).toBe(
      'file: must be at most 30 s long (got 30.001 s)',
    );
    expect(check({ file: { name: 'a.wav', bytes: new Uint8Array(10_000_001) } }).errors[0]?.message).toMatch(
      /10000000 bytes/,
    );
  });

  it('warns about a prompt over 60 characters and refuses other response formats and params', () => {
    expect(check({ prompt: 'x'.repeat(61) }).warnings[0]).toMatch(/recommends under 60/);
    expect(check({ prompt: 'x'.repeat(60) }).warnings).toEqual([]);
    expect(fieldsOf(check({ response_format: 'text' }))).toEqual(['response_format']);
    expect(fieldsOf(check({ temperature: '1.5' }))).toEqual(['temperature']);
    expect(fieldsOf(check({ otherFields: ['timestamp_granularities'] }))).toEqual(['timestamp_granularities']);
  });
});

describe('limits enforced on both sides of the wire', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(() => service.close());

  it('the client refuses before anything is sent', async () => {
    const before = service.sim.requests.length;
    await expect(
      service.chat.create({ model: 'Ling-3.0-flash', messages: [{ role: 'user', content: 'x' }], temperature: 1.5 }),
    ).rejects.toThrow(RequestValidationError);
    await expect(collect(service.speech.streamSse({ input: 'x'.repeat(2049) }))).rejects.toThrow(
      /input: must be at most 2048/,
    );
    await expect(
      service.transcription.transcribe({ file: { name: 'long.wav', bytes: toneWav(31_000, 8000) } }),
    ).rejects.toThrow(/file: must be at most 30 s long/);
    expect(service.sim.requests.length).toBe(before);
  });

  it.each([
    ['/v1/chat/completions', { model: 'Ling-3.0-flash', messages: user, top_p: 0 }, 'top_p'],
    ['/anthropic/v1/messages', { model: 'Ling-3.0-flash', messages: user, temperature: -1 }, 'temperature'],
    ['/v1/audio/speech', { model: 'Ming-3.0-tts', input: 'x', sample_rate: 44100 }, 'sample_rate'],
    ['/v1/audio/speech', { model: 'Ming-3.0-tts', input: '' }, 'input'],
    // The spec gives the messages-style `system` as object[] only.
    ['/anthropic/v1/messages', { model: 'Ling-3.0-flash', messages: user, system: 'Be brief.' }, 'system'],
  ])('the stand-in answers %s with a 400 naming %s', async (path, body, field) => {
    const response = await request(`${service.sim.url}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${service.sim.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.statusCode).toBe(400);
    const text = await response.body.text();
    expect(text).toContain(field);
    expect(JSON.parse(text)).toHaveProperty('error.message');
  });

  it("hark's own client still sends a plain system prompt, as the object[] the spec asks for", async () => {
    const reply = await service.messages.create({
      model: 'Ling-3.0-flash',
      messages: [{ role: 'user', content: 'x' }],
      system: 'Be brief.',
    });
    expect(reply.text).not.toBe('');
    expect(service.sim.requestsTo('messages').at(-1)?.body).toMatchObject({
      system: [{ type: 'text', text: 'Be brief.' }],
    });
  });

  it('the stand-in refuses an unknown model with 404 and a missing body field with 400', async () => {
    const send = (body: object) =>
      request(`${service.sim.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${service.sim.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const unknown = await send({ model: 'nope', messages: user });
    expect(unknown.statusCode).toBe(404);
    await unknown.body.dump();
    const missing = await send({ messages: user });
    expect(missing.statusCode).toBe(400);
    expect(await missing.body.text()).toMatch(/model/);
  });
});
