import type { Command } from 'commander';
import { loadConfig } from '../config/load.js';
import type { ToolSpec } from '../dialog/tool-calls.js';
import { commandLogger, UsageError, type GlobalOptions } from './command-context.js';

/** One line per tool: name, source, and the first sentence of its description. */
export function toolTable(tools: readonly ToolSpec[]): string {
  if (tools.length === 0)
    return 'no tools (tools.enabled is false, or every built-in is off and no MCP server answered)';
  const width = Math.max(...tools.map((t) => t.name.length));
  const sourceWidth = Math.max(...tools.map((t) => t.source.length));
  return tools
    .map(
      (t) => `${t.name.padEnd(width)}  ${t.source.padEnd(sourceWidth)}  ${/^[^.]*\.?/.exec(t.description)?.[0] ?? ''}`,
    )
    .join('\n');
}

/** The JSON arguments of `hark tools call`: an object, or a usage error saying what is wrong. */
export function parseToolArgs(text: string | undefined): Record<string, unknown> {
  if (text === undefined || text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`the arguments are not JSON: ${(error as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new UsageError('the arguments must be a JSON object, e.g. \'{"duration_seconds": 60}\'');
  }
  return value as Record<string, unknown>;
}

export function registerTools(program: Command, globals: () => GlobalOptions): void {
  const tools = program.command('tools').description('the tools the chat model may call (built-in and MCP servers)');
  const open = async () => {
    const loaded = loadConfig({ configPath: globals().config });
    const logger = commandLogger(globals(), loaded.config, 'stderr');
    // Loaded on demand: other commands carry none of this.
    const [{ startTools }, { createPlayer }] = await Promise.all([
      import('../app/tools/tools.js'),
      import('../app/compose/voice-loop.js'),
    ]);
    const player = createPlayer(loaded.config, {}, logger);
    const started = await startTools({ ...loaded.config, tools: { ...loaded.config.tools, enabled: true } }, logger, {
      player,
      oneShot: true,
    });
    // Timers are read (a new one joins them) but never rung here: a running hark takes them up.
    await started.loadTimers(false);
    return { config: loaded.config, started, close: async () => Promise.all([started.stop(), player.close()]) };
  };
  tools
    .command('list')
    .description('list the tools offered to the model, with their source (--json adds each input schema)')
    .option('--json', 'print the tools as JSON (name, source, description, inputSchema)')
    .action(async (options: { json?: boolean }) => {
      const { started, close } = await open();
      try {
        const list = started.registry.list();
        process.stdout.write(options.json ? `${JSON.stringify(list, null, 2)}\n` : `${toolTable(list)}\n`);
      } finally {
        await close();
      }
    });
  tools
    .command('call')
    .description("run one tool as the model would, e.g. hark tools call get_time '{}'")
    .argument('<name>', 'the tool')
    .argument('[json-args]', 'its arguments, a JSON object')
    .action(async (name: string, json: string | undefined) => {
      const input = parseToolArgs(json);
      const { config, started, close } = await open();
      const signal = AbortSignal.timeout(config.tools.callTimeoutMs);
      try {
        const names = started.registry.list().map((tool) => tool.name);
        if (!names.includes(name)) {
          const unknown = `there is no tool named ${name} (known: ${names.join(', ')})`;
          // With MCP servers configured, the tool may be one a server that did not connect would offer.
          if (config.tools.mcpServers.length === 0) throw new UsageError(unknown);
          throw new Error(`${unknown}; if it is an MCP server's, that server may not have connected (see the log)`);
        }
        const output = await started.registry.call(name, input, signal);
        process.stdout.write(`${output.text}\n`);
        if (output.isError) process.exitCode = 1;
      } catch (error) {
        if (error instanceof UsageError) throw error;
        process.stderr.write(`hark: ${name} failed: ${(error as Error).message}\n`);
        process.exitCode = 1;
      } finally {
        await close();
      }
    });
}
