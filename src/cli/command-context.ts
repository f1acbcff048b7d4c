import { loadConfig, type LoadedConfig } from '../config/load.js';
import type { HarkConfig } from '../config/schema.js';
import { createService, type Service } from '../service/index.js';
import type { SimServer } from '../sim/server.js';
import { LogTail } from '../system/log-tail.js';
import { createLogger, resolveLogFormat, type Logger, type LogLevel } from '../system/logger.js';

export interface GlobalOptions {
  config?: string;
  logLevel?: LogLevel;
  logFormat?: 'json' | 'pretty' | 'auto';
  sim?: boolean;
}

export interface CommandContext extends Connection {
  config: HarkConfig;
  loaded: LoadedConfig;
  logger: Logger;
  /** The last lines the logger wrote (for the status page). */
  logTail: LogTail;
}

/** Thrown for mistakes in how a command was called: exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export function commandLogger(
  options: GlobalOptions,
  config: HarkConfig | undefined,
  stream: 'stdout' | 'stderr',
  tail?: LogTail,
): Logger {
  const out = stream === 'stdout' ? process.stdout : process.stderr;
  const format = resolveLogFormat(options.logFormat ?? config?.log.format ?? 'auto', out);
  return createLogger({
    level: options.logLevel ?? (stream === 'stderr' ? 'warn' : (config?.log.level ?? 'info')),
    write: (line) => out.write(line),
    format,
    colors: format === 'pretty' && out.isTTY === true && !process.env.NO_COLOR,
    syslogPrefix: stream === 'stdout' && process.env.JOURNAL_STREAM !== undefined,
    tail,
  });
}

export interface Connection {
  service: Service;
  /** The stand-in, when one was asked for. */
  sim: SimServer | undefined;
  /** A key will be sent: the configured one, or the stand-in's. */
  hasKey: boolean;
  close(): Promise<void>;
}

/** The configured service, or with `useSim` a stand-in started in this process (no key or network needed). */
export async function connectService(loaded: LoadedConfig, useSim: boolean, logger: Logger): Promise<Connection> {
  const { config } = loaded;
  let sim: SimServer | undefined;
  let target = { baseUrl: config.service.baseUrl, apiKey: loaded.apiKey ?? '' };
  if (useSim) {
    // Loaded only when asked for: the daemon never carries the stand-in's code.
    const { startSim } = await import('../sim/server.js');
    sim = await startSim({ messagesPrefix: config.service.messagesPrefix, edition: config.service.edition, logger });
    target = { baseUrl: sim.url, apiKey: sim.apiKey };
    logger.info('sim.started', { url: sim.url });
  }
  // The transport refuses an empty key; a missing one is reported by whoever asked (doctor, openContext).
  const service = createService(config, { ...target, apiKey: target.apiKey || 'no-key' }, logger);
  return {
    service,
    sim,
    hasKey: Boolean(target.apiKey),
    async close() {
      await service.close();
      await sim?.close();
    },
  };
}

/** What a command checks of how it was called once the configuration is known, before any work (the stand-in starting). */
export type UsageCheck = (config: HarkConfig) => Promise<void> | void;

/**
 * Config, logger and service for one command; `--sim` talks to a stand-in started in this
 * process. `check` runs first: a mistake in how the command was called is said before anything starts.
 */
export async function openContext(
  options: GlobalOptions,
  logTo: 'stdout' | 'stderr' = 'stderr',
  check?: UsageCheck,
): Promise<CommandContext> {
  const loaded = loadConfig({ configPath: options.config });
  await check?.(loaded.config);
  const logTail = new LogTail();
  const logger = commandLogger(options, loaded.config, logTo, logTail);
  if (!options.sim && !loaded.apiKey) {
    throw new UsageError(
      'no API key: set HARK_API_KEY (or a systemd credential named hark-api-key), or add --sim to use the built-in stand-in service',
    );
  }
  const connection = await connectService(loaded, options.sim === true, logger);
  return { config: loaded.config, loaded, logger, logTail, ...connection };
}

export function withContext<T>(
  options: GlobalOptions,
  logTo: 'stdout' | 'stderr',
  body: (ctx: CommandContext) => Promise<T>,
): Promise<T> {
  return withCheckedContext(options, logTo, undefined, body);
}

/** `withContext`, with what the command was given checked (`check`) before any work starts. */
export async function withCheckedContext<T>(
  options: GlobalOptions,
  logTo: 'stdout' | 'stderr',
  check: UsageCheck | undefined,
  body: (ctx: CommandContext) => Promise<T>,
): Promise<T> {
  const ctx = await openContext(options, logTo, check);
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
