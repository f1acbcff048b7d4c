import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { HarkConfig } from '../config/schema.js';
import { createService, type Service } from '../service/index.js';
import { startSim, type SimServer } from '../sim/server.js';
import { createLogger, type Logger, type LogLevel } from '../system/logger.js';

export interface GlobalOptions {
  config?: string;
  logLevel?: LogLevel;
  sim?: boolean;
}

export interface CommandContext {
  config: HarkConfig;
  loaded: LoadedConfig;
  logger: Logger;
  /** The stand-in, when `--sim` asked for one. */
  sim: SimServer | undefined;
  service: Service;
  close(): Promise<void>;
}

/** Thrown for mistakes in how a command was called: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function commandLogger(
  options: GlobalOptions,
  config: HarkConfig | undefined,
  stream: 'stdout' | 'stderr',
): Logger {
  const out = stream === 'stdout' ? process.stdout : process.stderr;
  return createLogger({
    level: options.logLevel ?? (stream === 'stderr' ? 'warn' : (config?.log.level ?? 'info')),
    write: (line) => out.write(line),
    syslogPrefix: stream === 'stdout' && process.env.JOURNAL_STREAM !== undefined,
  });
}

/**
 * Config, logger and service for one command. With `--sim`, a stand-in service starts in
 * this process and hark talks to it, so everything works without a key or a network.
 */
export async function openContext(
  options: GlobalOptions,
  logTo: 'stdout' | 'stderr' = 'stderr',
): Promise<CommandContext> {
  const loaded = loadConfig({ configPath: options.config });
  const { config } = loaded;
  const logger = commandLogger(options, config, logTo);
  let sim: SimServer | undefined;
  let target = { baseUrl: config.service.baseUrl, apiKey: loaded.apiKey ?? '' };
  if (options.sim) {
    sim = await startSim({ messagesPrefix: config.service.messagesPrefix, edition: config.service.edition, logger });
    target = { baseUrl: sim.url, apiKey: sim.apiKey };
    logger.info('sim.started', { url: sim.url });
  } else if (!target.apiKey) {
    throw new UsageError(
      'no API key: set HARK_API_KEY (or a systemd credential named hark-api-key), or add --sim to use the built-in stand-in service',
    );
  }
  const service = createService(config, target, logger);
  return {
    config,
    loaded,
    logger,
    sim,
    service,
    async close() {
      await service.close();
      await sim?.close();
    },
  };
}

export async function withContext<T>(
  options: GlobalOptions,
  logTo: 'stdout' | 'stderr',
  body: (ctx: CommandContext) => Promise<T>,
): Promise<T> {
  const ctx = await openContext(options, logTo);
  try {
    return await body(ctx);
  } finally {
    await ctx.close();
  }
}

export function parseNumber(name: string, min: number, max: number) {
  return (raw: string): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new UsageError(`${name} must be a number from ${min} to ${max} (got ${raw})`);
    }
    return value;
  };
}
