import { isRecord, streamErrorEvent } from './service-error.js';
import { truncatedStream } from './client-base.js';
import { parseToolInput, type ReplyEvent, type TokenUsage } from '../contract/reply.js';

interface OpenToolUse {
  id: string;
  name: string;
  json: string;
}

/**
 * Turns messages-style stream events into reply events. Tolerates `ping` anywhere, thinking
 * and signature deltas, tool input streamed as `input_json_delta` (parsed at the block's stop),
 * and event or block types it does not know (ignored). An `error` event after HTTP 200 becomes
 * a ServiceError.
 */
export class MessagesStreamReader {
  private readonly toolUses = new Map<number, OpenToolUse>();
  private stopReason: string | undefined;
  private usage: TokenUsage | undefined;
  private stopped = false;

  get finished(): boolean {
    return this.stopped;
  }

  /**
   * Reads one event; pushes the reply events it carries onto `out`. True when it moved the
   * reply on (content, tool input, the end); false for `ping`, `message_start` and unknown events.
   */
  read(eventName: string, payload: unknown, out: ReplyEvent[]): boolean {
    if (!isRecord(payload)) return false;
    const type = typeof payload.type === 'string' ? payload.type : eventName;
    switch (type) {
      case 'message_start':
        if (isRecord(payload.message) && isRecord(payload.message.usage)) this.mergeUsage(payload.message.usage);
        return false;
      case 'content_block_start':
        return this.startBlock(payload, out);
      case 'content_block_delta':
        return this.readDelta(payload, out);
      case 'content_block_stop':
        this.stopBlock(payload, out);
        return false;
      case 'message_delta':
        if (isRecord(payload.delta) && typeof payload.delta.stop_reason === 'string') {
          this.stopReason = payload.delta.stop_reason;
        }
        if (isRecord(payload.usage)) this.mergeUsage(payload.usage);
        return true;
      case 'message_stop':
        this.stopped = true;
        out.push({ type: 'done', stopReason: this.stopReason, usage: this.usage });
        return true;
      case 'error':
        throw streamErrorEvent(
          'messages',
          isRecord(payload.error) ? payload.error : {},
          'api_error',
          typeof payload.request_id === 'string' ? payload.request_id : undefined,
        );
      default:
        return false;
    }
  }

  /** The body ended: fine after `message_stop`, a truncated reply otherwise. */
  finish(): void {
    if (!this.stopped) throw truncatedStream('messages', 'message_stop');
  }

  private startBlock(payload: Record<string, unknown>, out: ReplyEvent[]): boolean {
    const block = payload.content_block;
    if (!isRecord(block)) return false;
    const before = out.length;
    if (block.type === 'text' && typeof block.text === 'string' && block.text)
      out.push({ type: 'text', text: block.text });
    if (block.type === 'thinking' && typeof block.thinking === 'string' && block.thinking) {
      out.push({ type: 'reasoning', text: block.thinking });
    }
    if (block.type === 'tool_use') {
      const initial = isRecord(block.input) && Object.keys(block.input).length > 0 ? JSON.stringify(block.input) : '';
      this.toolUses.set(indexOf(payload), {
        id: typeof block.id === 'string' ? block.id : '',
        name: typeof block.name === 'string' ? block.name : '',
        json: initial,
      });
      return true;
    }
    return out.length > before;
  }

  private readDelta(payload: Record<string, unknown>, out: ReplyEvent[]): boolean {
    const delta = payload.delta;
    if (!isRecord(delta)) return false;
    if (delta.type === 'text_delta' && typeof delta.text === 'string') {
      if (delta.text) out.push({ type: 'text', text: delta.text });
      return delta.text.length > 0;
    }
    if (delta.type === 'thinking_delta' && typeof delta.thinking === 'string') {
      if (delta.thinking) out.push({ type: 'reasoning', text: delta.thinking });
      return delta.thinking.length > 0;
    }
    if (delta.type === 'signature_delta') return true;
    if (delta.type === 'input_json_delta' && typeof delta.partial_json === 'string') {
      const open = this.toolUses.get(indexOf(payload));
      if (open) open.json += delta.partial_json;
      return delta.partial_json.length > 0;
    }
    return false;
  }

  private stopBlock(payload: Record<string, unknown>, out: ReplyEvent[]): void {
    const index = indexOf(payload);
    const open = this.toolUses.get(index);
    if (!open) return;
    this.toolUses.delete(index);
    out.push({
      type: 'tool_call',
      call: { id: open.id, name: open.name, arguments: open.json, input: parseToolInput(open.json) },
    });
  }

  private mergeUsage(usage: Record<string, unknown>): void {
    const inputTokens = typeof usage.input_tokens === 'number' ? usage.input_tokens : (this.usage?.inputTokens ?? 0);
    const outputTokens =
      typeof usage.output_tokens === 'number' ? usage.output_tokens : (this.usage?.outputTokens ?? 0);
    this.usage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  }
}

function indexOf(payload: Record<string, unknown>): number {
  return typeof payload.index === 'number' ? payload.index : 0;
}
