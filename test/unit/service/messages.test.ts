import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MessagesClient } from '../../../src/service/messages.js';
import { collectReply } from '../../../src/contract/reply.js';
import { collect, startTestService, type TestService } from '../../helpers/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ messagesPrefix: 'anthropic' });
});
afterAll(() => service.close());
beforeEach(() => service.sim.script.clear());

const model = 'Ling-3.0-flash';

describe('messages-style client against the stand-in', () => {
  it('streams text deltas and ends with the stop reason and usage of message_delta', async () => {
    service.sim.script.reply('Short answer. Then another.');
    const reply = await collectReply(service.messages.stream({ model, messages: [{ role: 'user', content: 'q' }] }));
    expect(reply).toMatchObject({ text: 'Short answer. Then another.', stopReason: 'end_turn' });
    expect(reply.usage?.outputTokens).toBeGreaterThan(0);
  });

  it('sends system items, max_tokens defaulting to 32000, tool_choice, stop_sequences and thinking', async () => {
    await collect(
      service.messages.stream({
        model: 'Ring-2.6-1T',
        system: 'You are hark.',
        messages: [{ role: 'user', content: 'hi' }],
        tools: [{ name: 'clock', description: 'tells the time', input_schema: { type: 'object', properties: {} } }],
        tool_choice: { type: 'tool', name: 'clock' },
        stop_sequences: ['END'],
        output_config: { effort: 'xhigh' },
        thinking: { type: 'enabled' },
        temperature: 0,
        top_p: 1,
      }),
    );
    const request = service.sim.requestsTo('messages').at(-1);
    expect(request?.path).toBe('/anthropic/v1/messages');
    expect(request?.body).toMatchObject({
      system: [{ type: 'text', text: 'You are hark.' }],
      max_tokens: 32000,
      tool_choice: { type: 'tool', name: 'clock' },
      stop_sequences: ['END'],
      output_config: { effort: 'xhigh' },
      thinking: { type: 'enabled' },
      stream: true,
    });
  });

  it('parses tool input streamed as input_json_delta at content_block_stop', async () => {
    service.sim.script.reply({
      text: 'Checking.',
      toolCall: { name: 'lights', arguments: { room: 'kitchen', on: true } },
    });
    const reply = await collectReply(
      service.messages.stream({
        model,
        messages: [{ role: 'user', content: 'lights on' }],
        tools: [{ name: 'lights', input_schema: { type: 'object', properties: { room: { type: 'string' } } } }],
      }),
    );
    expect(reply.text).toBe('Checking.');
    expect(reply.stopReason).toBe('tool_use');
    expect(reply.toolCalls[0]).toMatchObject({ name: 'lights', input: { room: 'kitchen', on: true } });
  });

  it('accepts tool_use and tool_result content in the history', async () => {
    const reply = await service.messages.create({
      model,
      messages: [
        { role: 'user', content: 'time?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'clock', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: '12:00' }] },
      ],
      tools: [{ name: 'clock', input_schema: { type: 'object' } }],
    });
    expect(reply.stopReason).toBe('end_turn');
  });

  it('keeps thinking deltas apart from text', async () => {
    service.sim.script.reply({ reasoning: 'Hmm, rivers flow.', text: 'Downhill.' });
    const reply = await collectReply(
      service.messages.stream({
        model,
        messages: [{ role: 'user', content: 'where?' }],
        thinking: { type: 'enabled' },
      }),
    );
    expect(reply).toMatchObject({ text: 'Downhill.', reasoning: 'Hmm, rivers flow.' });
  });

  it('ignores ping events and unknown event and block types', async () => {
    service.sim.script.reply('Noise does not matter.').fault({ endpoint: 'messages', noise: true });
    const reply = await collectReply(service.messages.stream({ model, messages: [{ role: 'user', content: 'q' }] }));
    expect(reply.text).toBe('Noise does not matter.');
    expect(service.sim.requestsTo('messages').at(-1)?.events).toBeGreaterThan(8);
  });

  it('turns an error event after HTTP 200 into a ServiceError of that type', async () => {
    service.sim.script.fault({ endpoint: 'messages', errorEventAfterEvents: 3 });
    const error = await collect(service.messages.stream({ model, messages: [{ role: 'user', content: 'q' }] })).catch(
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ name: 'ServiceError', type: 'overloaded_error', status: 0 });
    expect((error as Error).message).toMatch(/^messages: stream error overloaded_error: Overloaded/);
  });

  it('stops at a stop sequence and says which', async () => {
    service.sim.script.reply('one two STOP three');
    const reply = await service.messages.create({
      model,
      messages: [{ role: 'user', content: 'count' }],
      stop_sequences: ['STOP'],
    });
    expect(reply.text).toBe('one two ');
    expect(reply.stopReason).toBe('stop_sequence');
  });

  it('authenticates with x-api-key when configured, and never sends both headers', async () => {
    const client = new MessagesClient({ transport: service.transport, authStyle: 'x-api-key' });
    const reply = await client.create({ model, messages: [{ role: 'user', content: 'hi' }] });
    expect(reply.text.length).toBeGreaterThan(0);
    const headers = service.sim.requestsTo('messages').at(-1)?.headers ?? {};
    expect(headers['x-api-key']).toBe('(present)');
    expect(headers.authorization).toBeUndefined();
  });

  it('uses a configured prefix in the path', async () => {
    const other = await startTestService({ messagesPrefix: 'compatA' });
    try {
      const reply = await other.messages.create({ model, messages: [{ role: 'user', content: 'hi' }] });
      expect(reply.text).toContain('hi');
      expect(other.sim.requests.at(-1)?.path).toBe('/compatA/v1/messages');
    } finally {
      await other.close();
    }
  });
});
