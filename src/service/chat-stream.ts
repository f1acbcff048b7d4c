import { isRecord, streamErrorEvent } from './service-error.js';
import { parseToolInput, type ReplyEvent, type TokenUsage } from '../contract/reply.js';
import { truncatedStream } from './client-base.js';

interface PartialToolCall {
  id: string;
  name: string;
  arguments: string;
}

/**
 * Turns chat-completion chunks into reply events: text, reasoning kept apart, tool-call
 * fragments assembled by index, and one `done` with the real usage (the spec sends zeros
 * with `finish_reason` and the real counts in a last chunk with empty `choices`).
 */
export class ChatStreamReader {
  private stopReason: string | undefined;
  private usage: TokenUsage | undefined;
  private readonly toolCalls = new Map<number, PartialToolCall>();
  private sawDone = false;

  /**
   * Reads one chunk; pushes the events it carries onto `out`. True when the chunk moved the
   * reply on (text, reasoning, tool input, its end), false for an empty or unknown one.
   */
  read(chunk: unknown, out: ReplyEvent[]): boolean {
    if (!isRecord(chunk)) return false;
    const before = out.length;
    let progress = false;
    if (isRecord(chunk.error)) throw streamErrorEvent('chat', chunk.error, 'stream_error');
    const usage = chunk.usage;
    if (isRecord(usage)) {
      const next = readUsage(usage);
      if (!this.usage || next.totalTokens > 0) this.usage = next;
    }
    const choices = chunk.choices;
    if (!Array.isArray(choices)) return false;
    for (const choice of choices) {
      if (!isRecord(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
      const delta = choice.delta;
      if (isRecord(delta)) {
        const reasoning = delta.reasoning_content;
        if (typeof reasoning === 'string' && reasoning.length > 0) out.push({ type: 'reasoning', text: reasoning });
        const content = delta.content;
        if (typeof content === 'string' && content.length > 0) out.push({ type: 'text', text: content });
        if (Array.isArray(delta.tool_calls) && this.readToolFragments(delta.tool_calls)) progress = true;
      }
      if (typeof choice.finish_reason === 'string') {
        this.stopReason = choice.finish_reason;
        progress = true;
      }
    }
    return progress || out.length > before;
  }

  markDone(): void {
    this.sawDone = true;
  }

  /** The stream ended: completed tool calls, then `done`; an error if the reply was cut short. */
  finish(out: ReplyEvent[]): void {
    if (this.stopReason === undefined && !this.sawDone) throw truncatedStream('chat', 'its finish_reason');
    for (const partial of [...this.toolCalls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call)) {
      out.push({ type: 'tool_call', call: { ...partial, input: parseToolInput(partial.arguments) } });
    }
    out.push({ type: 'done', stopReason: this.stopReason, usage: this.usage });
  }

  /** True when a fragment carried a name or arguments. */
  private readToolFragments(fragments: unknown[]): boolean {
    let progress = false;
    for (const fragment of fragments) {
      if (!isRecord(fragment)) continue;
      const index = typeof fragment.index === 'number' ? fragment.index : 0;
      const call = this.toolCalls.get(index) ?? { id: '', name: '', arguments: '' };
      if (typeof fragment.id === 'string' && fragment.id) call.id = fragment.id;
      const fn = fragment.function;
      if (isRecord(fn)) {
        if (typeof fn.name === 'string') call.name += fn.name;
        if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
        if (fn.name || fn.arguments) progress = true;
      }
      this.toolCalls.set(index, call);
    }
    return progress;
  }
}

export function readUsage(usage: Record<string, unknown>): TokenUsage {
  const num = (key: string): number => (typeof usage[key] === 'number' ? usage[key] : 0);
  const inputTokens = num('prompt_tokens') || num('input_tokens');
  const outputTokens = num('completion_tokens') || num('output_tokens');
  return { inputTokens, outputTokens, totalTokens: num('total_tokens') || inputTokens + outputTokens };
}
