/**
 * Tools as the conversation sees them: what the model is offered, what it called and what came
 * back, and what a reply model with tools reports while it runs them. Types and pure helpers.
 */

/** A JSON-schema-like object describing a tool's input (`type: "object"`). */
export interface ToolInputSchema {
  type: 'object';
  properties?: Record<string, { type?: string; description?: string; enum?: string[] } & Record<string, unknown>>;
  required?: string[];
  [key: string]: unknown;
}

/** A tool offered to the model. `source` says where it lives: `built-in` or `mcp:<server>`. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: ToolInputSchema;
  source: string;
}

/** One call the model made and what it returned, as the history keeps it. */
export interface ToolExchange {
  id: string;
  name: string;
  /** The arguments as the model streamed them (JSON text). */
  arguments: string;
  /** What the tool returned (cut to size), or why it failed. */
  result: string;
  isError: boolean;
}

export type ToolPhase = 'started' | 'finished' | 'failed';

/**
 * What a reply model with tools reports as it runs them: a call started, finished or failed
 * (cancelled included). `args` is the call's JSON text; `result` what goes back to the model.
 */
export interface ToolActivity {
  type: 'tool';
  callId: string;
  name: string;
  phase: ToolPhase;
  args?: string;
  result?: string;
  error?: string;
  ms?: number;
}

/** How the history shortens a result: the model saw more in the turn itself. */
export const HISTORY_RESULT_CHARS = 300;

/** At most `maxChars` of `text`, cut at a line or a word when one is near, saying how much was left out. */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  const head = text.slice(0, maxChars);
  const at = Math.max(head.lastIndexOf('\n'), head.lastIndexOf(' '));
  const kept = at > maxChars * 0.6 ? head.slice(0, at) : head;
  return `${kept.trimEnd()} … (${text.length - kept.length} more characters not shown)`;
}

/** The exchange as it is remembered after the turn. */
export function compactExchange(exchange: ToolExchange): ToolExchange {
  return { ...exchange, result: cutText(exchange.result, HISTORY_RESULT_CHARS) };
}
