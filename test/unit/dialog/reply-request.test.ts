import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src/config/schema.js';
import { checkChatBody } from '../../../src/contract/rules/chat.js';
import { checkMessagesBody } from '../../../src/contract/rules/messages.js';
import { toolResultsInText } from '../../../src/contract/tool-text.js';
import type { Message } from '../../../src/dialog/conversation.js';
import { buildChatRequest, buildMessagesRequest } from '../../../src/dialog/reply-request.js';
import type { ToolSpec } from '../../../src/dialog/tool-calls.js';

const GET_TIME: ToolSpec = {
  name: 'get_time',
  description: 'The local date and time.',
  inputSchema: { type: 'object', properties: {} },
  source: 'built-in',
};
const HISTORY: Message[] = [
  { role: 'user', text: 'What time is it?' },
  {
    role: 'assistant',
    text: 'Let me look.',
    tools: [{ id: 'call_1', name: 'get_time', arguments: '{}', result: '14:03, Tuesday', isError: false }],
  },
];

describe('requests with tools', () => {
  it('chat-completions: tools offered, the call as tool_calls, the result as a tool message', () => {
    const chat = defaultConfig().chat;
    const body = buildChatRequest(chat, HISTORY, { tools: [GET_TIME] });
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: { name: 'get_time', description: 'The local date and time.', parameters: GET_TIME.inputSchema },
      },
    ]);
    expect(body.messages.slice(1)).toEqual([
      { role: 'user', content: 'What time is it?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '14:03, Tuesday' },
    ]);
    expect(checkChatBody(body, 'A').errors).toEqual([]);
  });

  it('chat-completions with user-text results: one user message the stand-in can read back', () => {
    const chat = { ...defaultConfig().chat, toolResults: 'user-text' as const };
    const body = buildChatRequest(chat, HISTORY, { tools: [GET_TIME] });
    const last = body.messages.at(-1);
    expect(last?.role).toBe('user');
    expect(toolResultsInText(last?.content as string)).toEqual(['14:03, Tuesday']);
    expect(body.messages.some((m) => m.role === 'tool')).toBe(false);
  });

  it('chat-completions: no tools offered once no more may be called', () => {
    const body = buildChatRequest(defaultConfig().chat, HISTORY, { tools: [GET_TIME], noMoreTools: true });
    expect(body.tools).toBeUndefined();
  });

  it('messages-style: tool_use in the assistant message, tool_result in the next user message, merged with a question', () => {
    const chat = defaultConfig().chat;
    const history: Message[] = [
      ...HISTORY,
      { role: 'assistant', text: 'It is 14:03.' },
      { role: 'user', text: 'Thanks' },
    ];
    const failed: Message[] = [
      { role: 'user', text: 'Louder' },
      {
        role: 'assistant',
        text: '',
        tools: [{ id: 't2', name: 'volume', arguments: '{"action":"up"}', result: 'no mixer', isError: true }],
      },
    ];
    const body = buildMessagesRequest(chat, [...history, ...failed], { tools: [GET_TIME] });
    expect(body.tools).toEqual([
      { name: 'get_time', description: 'The local date and time.', input_schema: GET_TIME.inputSchema },
    ]);
    expect(body.tool_choice).toEqual({ type: 'auto' });
    expect(body.messages).toEqual([
      { role: 'user', content: 'What time is it?' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'call_1', name: 'get_time', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: '14:03, Tuesday' }] },
      { role: 'assistant', content: 'It is 14:03.' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Thanks' },
          { type: 'text', text: 'Louder' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't2', name: 'volume', input: { action: 'up' } }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't2', content: 'no mixer', is_error: true }],
      },
    ]);
    const wire = { ...body, system: [{ type: 'text', text: chat.systemPrompt }] };
    expect(checkMessagesBody(wire, 'A').errors).toEqual([]);
    expect(buildMessagesRequest(chat, history, { tools: [GET_TIME], noMoreTools: true }).tool_choice).toEqual({
      type: 'none',
    });
  });

  it('the stand-in refuses a tool result that answers no call', () => {
    const body = {
      model: 'Ling-3.0-flash',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'tool', tool_call_id: 'nobody', content: 'x' },
      ],
    };
    expect(checkChatBody(body, 'A').errors[0]?.field).toBe('messages[1].tool_call_id');
  });
});
