import type { HarkConfig } from '../../config/schema.js';
import { buildChatRequest, buildMessagesRequest, type RequestExtras } from '../../dialog/reply-request.js';
import { type Message } from '../../dialog/conversation.js';
import type { Service } from '../../service/index.js';
import type { ReplyEvent } from '../../contract/reply.js';

/** The reply to `history`, streamed from whichever endpoint the configuration names. */
export function streamReply(
  service: Service,
  config: Pick<HarkConfig, 'chat' | 'service'>,
  history: Message[],
  signal?: AbortSignal,
  extras: RequestExtras = {},
): AsyncGenerator<ReplyEvent> {
  return config.service.api === 'messages'
    ? service.messages.stream(buildMessagesRequest(config.chat, history, extras), { signal })
    : service.chat.stream(buildChatRequest(config.chat, history, extras), { signal });
}
