import type { ChatRequest } from '../contract/wire.js';
import { ClientBase, DONE, badResponse, type CallSignal } from './client-base.js';
import { ChatStreamReader, readUsage } from './chat-stream.js';
import { isRecord } from './service-error.js';
import { parseToolInput, type ReplyEvent, type ReplyResult, type ToolCall } from '../contract/reply.js';
import { checkChatBody } from '../contract/rules/chat.js';

const PATH = '/v1/chat/completions';

/** `POST {base}/v1/chat/completions`, streaming and not. */
export class ChatCompletionsClient extends ClientBase {
  /** Streams the reply as events; breaking out of the loop (or aborting) closes the connection. */
  async *stream(request: ChatRequest, options: CallSignal = {}): AsyncGenerator<ReplyEvent> {
    const body = { ...request, stream: true };
    this.enforce('chat', checkChatBody(body, this.edition));
    const reader = new ChatStreamReader();
    const out: ReplyEvent[] = [];
    const stream = await this.openEvents('chat', PATH, body, options);
    for await (const { json } of stream.events) {
      if (json === DONE) {
        // Read on to the end of the body so the keep-alive connection can be reused.
        reader.markDone();
        stream.progress();
        continue;
      }
      if (reader.read(json, out)) stream.progress();
      if (out.length > 0) {
        yield* out;
        out.length = 0;
      }
    }
    reader.finish(out);
    yield* out;
  }

  async create(request: ChatRequest, options: CallSignal = {}): Promise<ReplyResult> {
    const body = { ...request, stream: false };
    this.enforce('chat', checkChatBody(body, this.edition));
    return readCompletion(await this.postJson('chat', PATH, body, options));
  }
}

/** Reads a non-streaming `chat.completion` body (OpenAI shape). */
function readCompletion(json: unknown): ReplyResult {
  if (!isRecord(json) || !Array.isArray(json.choices)) throw badResponse('chat', 'the response has no choices');
  const choice = json.choices.find((c: unknown) => isRecord(c) && (c.index ?? 0) === 0) as
    Record<string, unknown> | undefined;
  const message = isRecord(choice?.message) ? choice.message : {};
  const toolCalls: ToolCall[] = (Array.isArray(message.tool_calls) ? message.tool_calls : [])
    .filter(isRecord)
    .map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      const args = typeof fn.arguments === 'string' ? fn.arguments : '';
      return {
        id: typeof call.id === 'string' ? call.id : '',
        name: typeof fn.name === 'string' ? fn.name : '',
        arguments: args,
        input: parseToolInput(args),
      };
    });
  return {
    id: typeof json.id === 'string' ? json.id : undefined,
    model: typeof json.model === 'string' ? json.model : undefined,
    text: typeof message.content === 'string' ? message.content : '',
    reasoning: typeof message.reasoning_content === 'string' ? message.reasoning_content : '',
    toolCalls,
    stopReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : undefined,
    usage: isRecord(json.usage) ? readUsage(json.usage) : undefined,
  };
}
