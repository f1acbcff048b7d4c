import type { HarkConfig } from '../config/schema.js';
import type {
  ChatRequest,
  ChatMessage,
  ChatContentPart,
  MessagesRequest,
  MessagesMessage,
  MessagesContentBlock,
} from '../contract/wire.js';
import type { Message } from './conversation.js';

/** Media attached to the newest user turn (from the command line). */
export type Attachment = { kind: 'image' | 'video' | 'audio'; dataUrl: string };

type ChatSettings = HarkConfig['chat'];

export function buildChatRequest(chat: ChatSettings, history: Message[], attachments: Attachment[] = []): ChatRequest {
  const messages: ChatMessage[] = [{ role: 'system', content: chat.systemPrompt }];
  history.forEach((turn, i) => {
    const media: Attachment[] = [
      ...(turn.audio ? [{ kind: 'audio' as const, dataUrl: turn.audio }] : []),
      ...(i === history.length - 1 && turn.role === 'user' ? attachments : []),
    ];
    if (media.length === 0) {
      messages.push({ role: turn.role, content: turn.text });
      return;
    }
    const text: ChatContentPart[] = turn.text ? [{ type: 'text', text: turn.text }] : [];
    messages.push({ role: turn.role, content: [...text, ...media.map(chatPart)] });
  });
  return {
    model: chat.model,
    messages,
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
  attachments: Attachment[] = [],
): MessagesRequest {
  const messages: MessagesMessage[] = history.map((turn, i) => {
    const images =
      i === history.length - 1 && turn.role === 'user' ? attachments.filter((a) => a.kind === 'image') : [];
    if (images.length === 0) return { role: turn.role, content: turn.text };
    const blocks: MessagesContentBlock[] = [{ type: 'text', text: turn.text }, ...images.map(imageBlock)];
    return { role: turn.role, content: blocks };
  });
  return {
    model: chat.model,
    system: chat.systemPrompt,
    messages,
    max_tokens: chat.maxTokens,
    ...(chat.temperature === null ? {} : { temperature: chat.temperature }),
    ...(chat.topP === null ? {} : { top_p: chat.topP }),
    ...(chat.effort === null ? {} : { output_config: { effort: chat.effort } }),
    ...(chat.thinking === 'default' ? {} : { thinking: { type: chat.thinking } }),
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
