import type { HarkConfig } from '../../config/schema.js';
import type { ReplyEvent, ReplyResult } from '../../contract/reply.js';
import { checkChatBody } from '../../contract/rules/chat.js';
import type { Checker } from '../../contract/rules/checker.js';
import { checkMessagesBody } from '../../contract/rules/messages.js';
import type { Message } from '../../dialog/conversation.js';
import { buildChatRequest, buildMessagesRequest, type RequestExtras } from '../../dialog/reply-request.js';
import type { Service } from '../../service/index.js';
import { messagesBody } from '../../service/messages.js';

/** The service's endpoint that replies, chat-completions or messages: the request it takes and its calls. */
export interface ReplyEndpoint {
  readonly api: HarkConfig['service']['api'];
  /** The reply to `history`, streamed. */
  stream(
    service: Service,
    history: Message[],
    signal?: AbortSignal,
    extras?: RequestExtras,
  ): AsyncGenerator<ReplyEvent>;
  /** The whole reply to `history`, in one response. */
  create(service: Service, history: Message[], extras?: RequestExtras): Promise<ReplyResult>;
  /** What the service's rules find in the streamed request for `history`, as the client sends it. */
  check(history: Message[], extras?: RequestExtras): Checker;
}

/** The endpoint `service.api` names, asked with `chat`'s settings: the one place the choice is made. */
export function replyEndpoint(config: Pick<HarkConfig, 'chat' | 'service'>): ReplyEndpoint {
  const { chat } = config;
  const { api, edition } = config.service;
  return api === 'messages'
    ? endpoint(api, {
        client: (service) => service.messages,
        request: (history, extras) => buildMessagesRequest(chat, history, extras),
        check: (request) => checkMessagesBody({ ...messagesBody(request), stream: true }, edition),
      })
    : endpoint(api, {
        client: (service) => service.chat,
        request: (history, extras) => buildChatRequest(chat, history, extras),
        check: (request) => checkChatBody({ ...request, stream: true }, edition),
      });
}

interface Endpoint<Request> {
  client: (service: Service) => {
    stream(request: Request, options: { signal?: AbortSignal | undefined }): AsyncGenerator<ReplyEvent>;
    create(request: Request): Promise<ReplyResult>;
  };
  request: (history: Message[], extras?: RequestExtras) => Request;
  check: (request: Request) => Checker;
}

function endpoint<Request>(api: ReplyEndpoint['api'], { client, request, check }: Endpoint<Request>): ReplyEndpoint {
  return {
    api,
    stream: (service, history, signal, extras) => client(service).stream(request(history, extras), { signal }),
    create: (service, history, extras) => client(service).create(request(history, extras)),
    check: (history, extras) => check(request(history, extras)),
  };
}
