/**
 * Tool results sent as user text. The chat-completions interface lists no `tool` role, so a
 * client may send results as a user message instead (hark's `chat.toolResults: user-text`);
 * hark and its stand-in both read this form.
 */
export const TOOL_RESULTS_HEADING = 'Results of the tool calls above:';

export interface ToolResultText {
  id: string;
  name: string;
  result: string;
  isError: boolean;
}

export function toolResultsAsText(results: ToolResultText[]): string {
  const lines = results.map((r) => `[${r.id}] ${r.name}${r.isError ? ' failed' : ''}: ${r.result}`);
  return [TOOL_RESULTS_HEADING, ...lines].join('\n');
}

/** The results in a user text of that form, or undefined when it is no such text. */
export function toolResultsInText(text: string): string[] | undefined {
  if (!text.startsWith(TOOL_RESULTS_HEADING)) return undefined;
  return text
    .slice(TOOL_RESULTS_HEADING.length)
    .split('\n')
    .map((line) => /^\[[^\]]*\] [^:]*: (.*)$/s.exec(line)?.[1])
    .filter((r): r is string => r !== undefined);
}
