/** What both generation endpoints produce, in one shape the rest of hark consumes. */
export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments exactly as streamed (JSON text). */
  arguments: string;
  /** The parsed arguments, or undefined when the text was not valid JSON. */
  input: unknown;
}

export type ReplyEvent =
  | { type: 'text'; text: string }
  /** Reasoning/thinking content: kept apart from the reply, never spoken. */
  | { type: 'reasoning'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'done'; stopReason: string | undefined; usage: TokenUsage | undefined };

export interface ReplyResult {
  id: string | undefined;
  model: string | undefined;
  text: string;
  reasoning: string;
  toolCalls: ToolCall[];
  stopReason: string | undefined;
  usage: TokenUsage | undefined;
}

export function parseToolInput(text: string): unknown {
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Folds a stream of reply events into one result (for callers that want the whole reply). */
export async function collectReply(events: AsyncIterable<ReplyEvent>): Promise<ReplyResult> {
  const result: ReplyResult = {
    id: undefined,
    model: undefined,
    text: '',
    reasoning: '',
    toolCalls: [],
    stopReason: undefined,
    usage: undefined,
  };
  for await (const event of events) {
    if (event.type === 'text') result.text += event.text;
    else if (event.type === 'reasoning') result.reasoning += event.text;
    else if (event.type === 'tool_call') result.toolCalls.push(event.call);
    else {
      result.stopReason = event.stopReason;
      result.usage = event.usage;
    }
  }
  return result;
}
