import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { HarkConfig } from '../../config/schema.js';
import { fillPlaceholders, urlSecrets } from '../../config/secret-values.js';
import type { ToolInputSchema } from '../../dialog/tool-calls.js';
import type { Logger } from '../../system/logger.js';
import type { Part } from '../../system/parts.js';
import { registerSecret } from '../../system/secrets.js';
import { childEnvironment } from '../../system/spawn.js';
import type { Tool, ToolOutput, ToolSource } from '../../tools/tool.js';

type McpServerConfig = HarkConfig['tools']['mcpServers'][number];

/** A dead server is tried again after 1 s, 2 s, 4 s, ... at most this long apart. */
const MAX_BACKOFF_MS = 60_000;

/**
 * Where an HTTP server is reached, and with which headers: a user name and password in its URL
 * (which fetch refuses to send) become Basic authorization, unless the headers give one. What
 * the URL carries is registered as secret, as it is written and as fetch's errors quote it.
 */
export function httpTarget(
  filled: string,
  headers: Record<string, string>,
): { url: URL; headers: Record<string, string> } {
  urlSecrets(filled).forEach(registerSecret);
  const url = new URL(filled);
  urlSecrets(url.href).forEach(registerSecret);
  if (!url.username && !url.password) return { url, headers };
  const basic = Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString(
    'base64',
  );
  registerSecret(basic);
  url.username = '';
  url.password = '';
  const given = Object.keys(headers).some((name) => name.toLowerCase() === 'authorization');
  return { url, headers: given ? headers : { ...headers, Authorization: `Basic ${basic}` } };
}

/** What an MCP result says, as text for the model: its text parts, and a note for anything else. */
export function resultText(content: unknown): string {
  if (!Array.isArray(content)) return JSON.stringify(content ?? '');
  return content
    .map((part: { type?: string; text?: string; mimeType?: string }) =>
      part.type === 'text'
        ? (part.text ?? '')
        : `[${part.type ?? 'content'}${part.mimeType ? ` ${part.mimeType}` : ''}]`,
    )
    .join('\n');
}

/** An MCP server's tools, as hark offers them: kept current, reconnected with backoff when it dies. */
export interface McpSource extends ToolSource, Part {
  readonly name: string;
}

export interface McpOptions {
  callTimeoutMs: number;
  logger: Logger;
  /** Where the initial connection waits no longer: the voice loop starts, the server joins when it answers. */
  connectTimeoutMs?: number;
  /**
   * systemd's credentials directory, where `${NAME}` is looked for when the environment has no
   * NAME: given here because the daemon takes it out of its environment (for every child's sake).
   */
  credentials?: string | undefined;
}

/** Connects to one server (stdio or streamable HTTP) and keeps the allowed part of its tool list. */
export async function startMcpSource(server: McpServerConfig, options: McpOptions): Promise<McpSource> {
  const { logger } = options;
  const source = `mcp:${server.name}`;
  const allowAll = server.allow.includes('*');
  let client: Client | undefined;
  let tools: Tool[] = [];
  let closed = false;
  let failures = 0;
  let retry: NodeJS.Timeout | undefined;

  const toTool = (t: { name: string; description?: string | undefined; inputSchema: unknown }): Tool => ({
    name: t.name,
    description: t.description ?? t.name,
    inputSchema: t.inputSchema as ToolInputSchema,
    source,
    run: async (input, signal): Promise<ToolOutput> => {
      if (!client) throw new Error(`the ${server.name} server is not connected`);
      const result = await client.callTool({ name: t.name, arguments: input }, undefined, {
        signal,
        timeout: options.callTimeoutMs,
      });
      const text = 'content' in result ? resultText(result.content) : JSON.stringify(result.toolResult);
      return { text, isError: result.isError === true };
    },
  });
  const keep = (listed: { name: string; description?: string | undefined; inputSchema: unknown }[]): void => {
    tools = listed.filter((t) => allowAll || server.allow.includes(t.name)).map(toTool);
    logger.info('mcp.tools', { server: server.name, tools: tools.map((t) => t.name), offered: listed.length });
  };
  // Filled at each connection: a secret set since (a credential renewed) is taken up.
  const withCredentials = (): NodeJS.ProcessEnv =>
    options.credentials ? { ...process.env, CREDENTIALS_DIRECTORY: options.credentials } : process.env;
  const transport = (): Transport => {
    const env = withCredentials();
    const fill = (value: string): string => fillPlaceholders(value, env);
    const fillAll = (values: Record<string, string>): Record<string, string> =>
      Object.fromEntries(Object.entries(values).map(([name, value]) => [name, fill(value)]));
    if (server.command) {
      return new StdioClientTransport({
        command: server.command,
        args: server.args.map(fill),
        env: childEnvironment(fillAll(server.env)),
        stderr: 'ignore',
      });
    }
    const { url, headers } = httpTarget(fill(server.url as string), fillAll(server.headers));
    return new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  };
  const reconnectLater = (): void => {
    if (closed || retry) return;
    const delay = Math.min(MAX_BACKOFF_MS, 1000 * 2 ** Math.min(failures, 6));
    failures++;
    logger.warn('mcp.reconnect', { server: server.name, inMs: delay });
    retry = setTimeout(() => {
      retry = undefined;
      void connect();
    }, delay);
    retry.unref();
  };
  const connect = async (): Promise<void> => {
    const next = new Client(
      { name: 'hark', version: '1' },
      {
        listChanged: {
          tools: {
            onChanged: (error, listed) => {
              if (closed || client !== next) return;
              if (error) logger.warn('mcp.list_failed', { server: server.name, error });
              else if (listed) keep(listed);
            },
          },
        },
      },
    );
    try {
      await next.connect(transport(), { timeout: options.connectTimeoutMs ?? 10_000 });
      keep((await next.listTools()).tools);
      next.onclose = () => {
        if (client !== next) return;
        client = undefined;
        tools = [];
        if (!closed) {
          logger.error('mcp.closed', { server: server.name });
          reconnectLater();
        }
      };
      client = next;
      logger.info(failures ? 'mcp.reconnected' : 'mcp.connected', {
        server: server.name,
        transport: server.command ? 'stdio' : 'http',
      });
      failures = 0;
    } catch (error) {
      logger.error('mcp.unavailable', { server: server.name, error: error as Error });
      await next.close().catch(() => undefined);
      reconnectLater();
    }
  };
  await connect();
  return {
    name: server.name,
    tools: () => tools,
    stop: async () => {
      closed = true;
      clearTimeout(retry);
      const open = client;
      client = undefined;
      await open?.close().catch(() => undefined);
    },
  };
}

/** Every configured server, connected side by side; one that cannot be reached does not hold up the rest. */
export function startMcpSources(config: HarkConfig, logger: Logger, credentials?: string): Promise<McpSource[]> {
  return Promise.all(
    config.tools.mcpServers.map((server) =>
      startMcpSource(server, { callTimeoutMs: config.tools.callTimeoutMs, logger, credentials }),
    ),
  );
}
