import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startSim, type SimServer } from '../../../src/sim/server.js';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ timing: { ttftMs: 1, tokensPerSecond: 2000 } });
});
afterAll(() => sim.close());

describe('the official openai client pointed at the stand-in', () => {
  const client = () => new OpenAI({ apiKey: sim.apiKey, baseURL: `${sim.url}/v1`, maxRetries: 0 });

  it('completes a streaming chat call', async () => {
    sim.script.reply('Streaming works with the SDK.');
    const stream = await client().chat.completions.create({
      model: 'Ling-3.0-flash',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    let finish: string | null | undefined;
    let totalTokens = 0;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
      if (chunk.usage?.total_tokens) totalTokens = chunk.usage.total_tokens;
    }
    expect(text).toBe('Streaming works with the SDK.');
    expect(finish).toBe('stop');
    expect(totalTokens).toBeGreaterThan(0);
  });

  it('completes a non-streaming chat call', async () => {
    sim.script.reply('Whole.');
    const completion = await client().chat.completions.create({
      model: 'Ling-3.0-flash',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Whole.');
  });

  it('synthesizes speech and transcribes it back', async () => {
    const speech = await client().audio.speech.create({
      model: 'Ming-3.0-tts',
      input: 'Hello from the SDK.',
      voice: 'alloy',
    });
    const bytes = Buffer.from(await speech.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    sim.script.transcript('hello from the sdk');
    const result = await client().audio.transcriptions.create({
      model: 'Ming-3.0-asr-tiny',
      file: new File([bytes], 'speech.wav', { type: 'audio/wav' }),
    });
    expect(result.text).toBe('hello from the sdk');
  });
});

describe('the official @anthropic-ai/sdk client pointed at the stand-in', () => {
  const client = () => new Anthropic({ apiKey: sim.apiKey, baseURL: `${sim.url}/anthropic`, maxRetries: 0 });

  it('completes a streaming messages call', async () => {
    sim.script.reply('Messages stream through the SDK.');
    const stream = client().messages.stream({
      model: 'Ling-3.0-flash',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'hi' }],
    });
    let text = '';
    stream.on('text', (delta) => (text += delta));
    const final = await stream.finalMessage();
    expect(text).toBe('Messages stream through the SDK.');
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  it('completes a non-streaming messages call with a tool', async () => {
    sim.script.reply({ toolCall: { name: 'clock', arguments: { zone: 'UTC' } } });
    const message = await client().messages.create({
      model: 'Ling-3.0-flash',
      max_tokens: 1000,
      messages: [{ role: 'user', content: 'time?' }],
      tools: [{ name: 'clock', input_schema: { type: 'object', properties: { zone: { type: 'string' } } } }],
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content.find((b) => b.type === 'tool_use')).toMatchObject({ name: 'clock', input: { zone: 'UTC' } });
  });
});
