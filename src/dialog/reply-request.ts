import type { HarkConfig } from '../config/schema.js';
import { toolResultsAsText } from '../contract/tool-text.js';
import type {
  ChatRequest,
  ChatMessage,
  ChatContentPart,
  ChatTool,
  MessagesRequest,
  MessagesMessage,
  MessagesContentBlock,
  MessagesTool,
} from '../contract/wire.js';
import type { Message } from './conversation.js';
import type { ToolExchange, ToolSpec } from './tool-calls.js';

/** Media attached to the newest user turn (from the command line). */
export type Attachment = { kind: 'image' | 'video' | 'audio'; dataUrl: string };

type ChatSettings = HarkConfig['chat'];

/** What a request offers beyond the history: media on the newest user turn, and tools. */
export interface RequestExtras {
  attachments?: Attachment[];
  tools?: ToolSpec[];
  /** The model must answer in words now (tools offered earlier are still described). */
  noMoreTools?: boolean;
}

export function buildChatRequest(chat: ChatSettings, history: Message[], extras: RequestExtras = {}): ChatRequest {
  const attachments = extras.attachments ?? [];
  const messages: ChatMessage[] = [{ role: 'system', content: chat.systemPrompt }];
  history.forEach((turn, i) => {
    if (turn.tools?.length) {
      messages.push(...chatToolMessages(turn.text, turn.tools, chat.toolResults));
      return;
    }
    const attached = i === history.length - 1 && turn.role === 'user' ? attachments : [];
    if (!turn.audio && attached.length === 0) {
      messages.push({ role: turn.role, content: turn.text });
      return;
    }
    const media: Attachment[] = [...(turn.audio ? [{ kind: 'audio' as const, dataUrl: turn.audio }] : []), ...attached];
    const text: ChatContentPart[] = turn.text ? [{ type: 'text', text: turn.text }] : [];
    messages.push({ role: turn.role, content: [...text, ...media.map(chatPart)] });
  });
  // The chat-completions interface has no tool_choice: with no more tools allowed, none are offered.
  const tools = extras.noMoreTools ? [] : (extras.tools ?? []);
  return {
    model: chat.model,
    messages,
    ...(tools.length ? { tools: tools.map(chatTool) } : {}),
    ...(chat.temperature === null ? {} : { temperature: chat.temperature }),
    ...(chat.topP === null ? {} : { top_p: chat.topP }),
    ...(chat.enableSearch ? { enable_search: true, search_options: { forced_search: chat.forcedSearch } } : {}),
    ...(chat.effort === null ? {} : { reasoning: { effort: chat.effort } }),
    ...(chat.thinking === 'default' ? {} : { thinking: { type: chat.thinking } }),
  };
}

export function buildMessagesRequest(
  chat: ChatSettings,
  history: Message[],
  extras: RequestExtras = {},
): MessagesRequest {
  const attachments = extras.attachments ?? [];
  const messages: MessagesMessage[] = [];
  history.forEach((turn, i) => {
    if (turn.tools?.length) {
      const calls: MessagesContentBlock[] = turn.tools.map((t) => ({
        type: 'tool_use',
        id: t.id,
        name: t.name,
        input: inputOf(t.arguments),
      }));
      const results: MessagesContentBlock[] = turn.tools.map((t) => ({
        type: 'tool_result',
        tool_use_id: t.id,
        content: t.result,
        ...(t.isError ? { is_error: true } : {}),
      }));
      append(messages, { role: 'assistant', content: [...(turn.text ? [textBlock(turn.text)] : []), ...calls] });
      append(messages, { role: 'user', content: results });
      return;
    }
    const images =
      i === history.length - 1 && turn.role === 'user' ? attachments.filter((a) => a.kind === 'image') : [];
    const content: MessagesContentBlock[] = [textBlock(turn.text), ...images.map(imageBlock)];
    append(messages, { role: turn.role, content: images.length ? content : turn.text });
  });
  const tools = extras.tools ?? [];
  return {
    model: chat.model,
    system: chat.systemPrompt,
    messages,
    max_tokens: chat.maxTokens,
    ...(tools.length
      ? { tools: tools.map(messagesTool), tool_choice: { type: extras.noMoreTools ? 'none' : 'auto' } }
      : {}),
    ...(chat.temperature === null ? {} : { temperature: chat.temperature }),
    ...(chat.topP === null ? {} : { top_p: chat.topP }),
    ...(chat.effort === null ? {} : { output_config: { effort: chat.effort } }),
    ...(chat.thinking === 'default' ? {} : { thinking: { type: chat.thinking } }),
  };
}

/** An assistant message that called tools, then the results: as `tool` messages, or as one user message. */
function chatToolMessages(text: string, tools: ToolExchange[], form: ChatSettings['toolResults']): ChatMessage[] {
  const call: ChatMessage = {
    role: 'assistant',
    content: text || null,
    tool_calls: tools.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })),
  };
  if (form === 'user-text') return [call, { role: 'user', content: toolResultsAsText(tools) }];
  return [
    call,
    ...tools.map((t): ChatMessage => ({
      role: 'tool',
      tool_call_id: t.id,
      content: t.isError ? `Error: ${t.result}` : t.result,
    })),
  ];
}

/**
 * Adds a message, joining it to the one before when both have the same role (tool results
 * followed by the next question): the messages-style protocol alternates user and assistant.
 */
function append(messages: MessagesMessage[], message: MessagesMessage): void {
  const last = messages.at(-1);
  if (last?.role !== message.role) {
    messages.push(message);
    return;
  }
  const blocks = (content: MessagesMessage['content']): MessagesContentBlock[] =>
    typeof content === 'string' ? [textBlock(content)] : content;
  messages[messages.length - 1] = { role: last.role, content: [...blocks(last.content), ...blocks(message.content)] };
}

function textBlock(text: string): MessagesContentBlock {
  return { type: 'text', text };
}

function inputOf(args: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(args || '{}');
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function chatTool(tool: ToolSpec): ChatTool {
  return {
    type: 'function',
    function: {
      name: tool.name,
      description: tool.description,
      parameters: tool.inputSchema as NonNullable<ChatTool['function']['parameters']>,
    },
  };
}

function messagesTool(tool: ToolSpec): MessagesTool {
  return {
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as MessagesTool['input_schema'],
  };
}

function chatPart(attachment: Attachment): ChatContentPart {
  const url = { url: attachment.dataUrl };
  if (attachment.kind === 'image') return { type: 'image_url', image_url: url };
  if (attachment.kind === 'video') return { type: 'video_url', video_url: url };
  return { type: 'audio_url', audio_url: url };
}

function imageBlock(attachment: Attachment): MessagesContentBlock {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(attachment.dataUrl);
  return {
    type: 'image',
    source: { type: 'base64', media_type: match?.[1] ?? 'image/png', data: match?.[2] ?? '' },
  };
}
