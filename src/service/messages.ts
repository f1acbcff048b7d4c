import type { MessagesRequest } from '../contract/wire.js';
import { ClientBase, DONE, badResponse, type CallSignal, type ClientOptions } from './client-base.js';
import { isRecord } from './service-error.js';
import type { AuthStyle } from './http.js';
import { LIMITS } from '../contract/limits.js';
import { MessagesStreamReader } from './messages-stream.js';
import { parseToolInput, type ReplyEvent, type ReplyResult, type ToolCall } from '../contract/reply.js';
import { checkMessagesBody } from '../contract/rules/messages.js';

export interface MessagesClientOptions extends ClientOptions {
  /** The path segment of the messages-style family; the public deployment uses `anthropic`. */
  prefix?: string;
  /** Which one of the two mutually exclusive auth headers to send. */
  authStyle?: AuthStyle;
}

/** `POST {base}/{prefix}/v1/messages`, streaming and not. */
export class MessagesClient extends ClientBase {
  private readonly path: string;
  private readonly authStyle: AuthStyle;

  constructor(options: MessagesClientOptions) {
    super(options);
    const prefix = (options.prefix ?? 'anthropic').replace(/^\/+|\/+$/g, '');
    this.path = prefix ? `/${prefix}/v1/messages` : '/v1/messages';
    this.authStyle = options.authStyle ?? 'bearer';
  }

  async *stream(request: MessagesRequest, options: CallSignal = {}): AsyncGenerator<ReplyEvent> {
    const body = { ...messagesBody(request), stream: true };
    this.enforce('messages', checkMessagesBody(body, this.edition));
    const reader = new MessagesStreamReader();
    const out: ReplyEvent[] = [];
    const stream = await this.openEvents('messages', this.path, body, { ...options, auth: this.authStyle });
    for await (const { sse, json } of stream.events) {
      if (json === DONE || reader.finished) continue;
      if (reader.read(sse.event, json, out)) stream.progress();
      if (out.length > 0) {
        yield* out;
        out.length = 0;
      }
    }
    reader.finish();
  }

  async create(request: MessagesRequest, options: CallSignal = {}): Promise<ReplyResult> {
    const body = { ...messagesBody(request), stream: false };
    this.enforce('messages', checkMessagesBody(body, this.edition));
    return readMessage(await this.postJson('messages', this.path, body, { ...options, auth: this.authStyle }));
  }
}

/** The request as it goes on the wire: `max_tokens` always, `system` as items. */
export function messagesBody(request: MessagesRequest): Record<string, unknown> {
  const { system, ...rest } = request;
  return {
    ...rest,
    max_tokens: request.max_tokens ?? LIMITS.defaultMaxTokens,
    ...(system === undefined ? {} : { system: typeof system === 'string' ? [{ type: 'text', text: system }] : system }),
  };
}

/** Reads a non-streaming `message` body (Anthropic shape). */
function readMessage(json: unknown): ReplyResult {
  if (!isRecord(json) || !Array.isArray(json.content)) throw badResponse('messages', 'the response has no content');
  let text = '';
  let reasoning = '';
  const toolCalls: ToolCall[] = [];
  for (const block of json.content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') text += block.text;
    else if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning += block.thinking;
    else if (block.type === 'tool_use') {
      const args = JSON.stringify(block.input ?? {});
      toolCalls.push({
        id: typeof block.id === 'string' ? block.id : '',
        name: typeof block.name === 'string' ? block.name : '',
        arguments: args,
        input: parseToolInput(args),
      });
    }
  }
  const usage = isRecord(json.usage) ? json.usage : {};
  const inputTokens = typeof usage.input_tokens === 'number' ? usage.input_tokens : 0;
  const outputTokens = typeof usage.output_tokens === 'number' ? usage.output_tokens : 0;
  return {
    id: typeof json.id === 'string' ? json.id : undefined,
    model: typeof json.model === 'string' ? json.model : undefined,
    text,
    reasoning,
    toolCalls,
    stopReason: typeof json.stop_reason === 'string' ? json.stop_reason : undefined,
    usage: isRecord(json.usage) ? { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens } : undefined,
  };
}
