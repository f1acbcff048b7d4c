import type { ToolSpec } from '../dialog/tool-calls.js';
import { ToolError, type Tool, type ToolOutput, type ToolSource } from './tool.js';

const MAX_NAME = 64;

/**
 * Every tool hark can offer, from all its sources, each under one name: the first source to
 * use a name keeps it, a later tool of that name is offered as `<server>_<name>`. Asked afresh
 * for every request, so tools an MCP server adds or drops take effect at the next one.
 */
export class ToolRegistry {
  constructor(private readonly sources: readonly ToolSource[]) {}

  tools(): Tool[] {
    const byName = new Map<string, Tool>();
    for (const source of this.sources) {
      for (const tool of source.tools()) {
        let name = tool.name;
        if (byName.has(name)) name = `${tool.source.replace(/^mcp:/, '')}_${tool.name}`.slice(0, MAX_NAME);
        if (!byName.has(name)) byName.set(name, name === tool.name ? tool : { ...tool, name });
      }
    }
    return [...byName.values()];
  }

  list(): ToolSpec[] {
    return this.tools().map(({ name, description, inputSchema, source }) => ({
      name,
      description,
      inputSchema,
      source,
    }));
  }

  async call(name: string, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolOutput> {
    const tool = this.tools().find((t) => t.name === name);
    if (!tool) throw new ToolError(`there is no tool named ${name}`);
    return tool.run(input, signal);
  }
}
