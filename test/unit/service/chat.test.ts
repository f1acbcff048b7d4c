import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { collectReply } from '../../../src/contract/reply.js';
import { ServiceError } from '../../../src/service/service-error.js';
import { collect, startTestService, type TestService } from '../../helpers/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());
beforeEach(() => service.sim.script.clear());

const model = 'Ling-3.0-flash';

describe('chat-completions client against the stand-in', () => {
  it('streams a reply token by token and reports the real usage from the last chunk', async () => {
    service.sim.script.reply('The sky is blue. Water is wet.');
    const events = await collect(
      service.chat.stream({ model, messages: [{ role: 'user', content: 'Tell me facts' }] }),
    );
    const texts = events.filter((e) => e.type === 'text');
    expect(texts.length).toBeGreaterThan(3);
    expect(texts.map((e) => e.text).join('')).toBe('The sky is blue. Water is wet.');
    const done = events.at(-1);
    expect(done).toMatchObject({ type: 'done', stopReason: 'stop' });
    expect(done?.type === 'done' && done.usage?.outputTokens).toBeGreaterThan(0);
  });

  it('sends every request parameter on the wire', async () => {
    await collect(
      service.chat.stream({
        model: 'Ring-2.6-1T',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: 'again' },
        ],
        temperature: 0.2,
        top_p: 0.9,
        enable_search: true,
        search_options: { forced_search: true },
        reasoning: { effort: 'xhigh' },
        tools: [
          {
            type: 'function',
            function: { name: 'clock', description: 'time', parameters: { type: 'object', properties: {} } },
          },
        ],
      }),
    );
    const body = service.sim.requestsTo('chat').at(-1)?.body as Record<string, unknown>;
    expect(body).toMatchObject({
      model: 'Ring-2.6-1T',
      stream: true,
      temperature: 0.2,
      top_p: 0.9,
      enable_search: true,
      search_options: { forced_search: true },
      reasoning: { effort: 'xhigh' },
    });
    expect((body.messages as unknown[]).length).toBe(4);
  });

  it('keeps reasoning_content apart from the spoken text', async () => {
    service.sim.script.reply({ reasoning: 'Let me think about this.', text: 'Four.' });
    const reply = await collectReply(
      service.chat.stream({
        model,
        messages: [{ role: 'user', content: 'two plus two' }],
        thinking: { type: 'enabled' },
      }),
    );
    expect(reply.text).toBe('Four.');
    expect(reply.reasoning).toBe('Let me think about this.');
  });

  it('assembles streamed tool_calls fragments into one call with parsed arguments', async () => {
    service.sim.script.reply({ toolCall: { name: 'get_weather', arguments: { city: 'Zürich', unit: 'celsius' } } });
    const reply = await collectReply(
      service.chat.stream({
        model,
        messages: [{ role: 'user', content: 'weather?' }],
        tools: [
          { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} } } },
        ],
      }),
    );
    expect(reply.stopReason).toBe('tool_calls');
    expect(reply.toolCalls).toEqual([
      {
        id: expect.any(String),
        name: 'get_weather',
        arguments: '{"city":"Zürich","unit":"celsius"}',
        input: { city: 'Zürich', unit: 'celsius' },
      },
    ]);
  });

  it('returns a whole completion when not streaming', async () => {
    service.sim.script.reply('Just one answer.');
    const reply = await service.chat.create({ model, messages: [{ role: 'user', content: 'q' }] });
    expect(reply).toMatchObject({ text: 'Just one answer.', stopReason: 'stop', model });
    expect(reply.usage?.totalTokens).toBeGreaterThan(0);
  });

  it('sends image and video blocks as data URLs to the vision model', async () => {
    await service.chat.create({
      model: 'Ling-3.0-flash-VL',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is this?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'video_url', video_url: { url: 'data:video/mp4;base64,AAAA' } },
          ],
        },
      ],
    });
    const body = service.sim.requestsTo('chat').at(-1)?.body as { messages: { content: { type: string }[] }[] };
    expect(body.messages[0]?.content.map((p) => p.type)).toEqual(['text', 'image_url', 'video_url']);
  });

  it('fails a stream that ends before its finish_reason, instead of passing off half a reply as whole', async () => {
    service.sim.script.fault({ endpoint: 'chat', dropAfterEvents: 3 });
    const seen: string[] = [];
    const run = async (): Promise<void> => {
      for await (const e of service.chat.stream({ model, messages: [{ role: 'user', content: 'x' }] })) {
        if (e.type === 'text') seen.push(e.text);
      }
    };
    await expect(run()).rejects.toMatchObject({ name: 'ServiceError', type: 'stream_interrupted', retryable: false });
    expect(seen.length).toBe(2);
  });

  it('reports a malformed frame as a ServiceError naming the problem', async () => {
    service.sim.script.fault({ endpoint: 'chat', malformedAfterEvents: 2 });
    const error = await collect(service.chat.stream({ model, messages: [{ role: 'user', content: 'x' }] })).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).type).toBe('malformed_stream');
  });
});

describe('chat stream without the [DONE] marker', () => {
  it('ends cleanly on the last chunk alone', async () => {
    const bare = await startTestService({ chatDoneMarker: false });
    try {
      const reply = await collectReply(bare.chat.stream({ model, messages: [{ role: 'user', content: 'hello' }] }));
      expect(reply.text).toContain('hello');
      expect(reply.stopReason).toBe('stop');
    } finally {
      await bare.close();
    }
  });
});
