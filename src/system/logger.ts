import { createRequire } from 'node:module';
import { pino, stdTimeFunctions, type Logger as Pino } from 'pino';
import type { prettyFactory as PrettyFactory } from 'pino-pretty';
import type { LogTail } from './log-tail.js';
import { redact } from './secrets.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;
/** json: one object per line (journald, pipes); pretty: readable, coloured lines for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/** syslog priorities, understood by journald when a line starts with `<N>`. */
const SYSLOG_PRIORITY: Record<string, number> = { debug: 7, info: 6, warn: 4, error: 3 };

export interface Logger {
  debug(event: string, fields?: LogFields): void;
  info(event: string, fields?: LogFields): void;
  warn(event: string, fields?: LogFields): void;
  error(event: string, fields?: LogFields): void;
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Where lines go; stdout for the daemon (journald keeps them), stderr for content-printing commands. */
  write?: (line: string) => void;
  /** Prefix JSON lines with a syslog priority so journald records the level. */
  syslogPrefix?: boolean;
  bindings?: LogFields;
  format?: LogFormat;
  /** Colours in pretty lines. */
  colors?: boolean;
  /** Also keeps the last lines, as JSON, for the status page. */
  tail?: LogTail;
}

/**
 * Structured logging through pino: `{"level":"info","time":"…","event":"…",…fields}` per line,
 * or the same as a readable line. Every line is scrubbed of registered secrets (by value, so a
 * key that turns up in any field or error message is caught) before it is written.
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const prettify =
    options.format === 'pretty'
      ? loadPrettyFactory()({
          colorize: options.colors ?? false,
          messageKey: 'event',
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname',
          singleLine: true,
        })
      : undefined;
  const destination = {
    write(json: string): void {
      const clean = redact(json);
      options.tail?.push(clean);
      if (prettify) write(redact(prettify(clean)));
      else if (options.syslogPrefix)
        write(`<${SYSLOG_PRIORITY[/^\{"level":"(\w+)"/.exec(clean)?.[1] ?? 'info'] ?? 6}>${clean}`);
      else write(clean);
    },
  };
  const root = pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      timestamp: stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }), log: (object) => plain(object) as Record<string, unknown> },
      serializers: { err: plain },
    },
    destination,
  );
  return wrap(options.bindings ? root.child(plain(options.bindings) as LogFields) : root);
}

/** pino-pretty only for a person at a terminal: the daemon under journald never loads it (importing it alone took 94 ms and 8 MiB here). */
function loadPrettyFactory(): typeof PrettyFactory {
  const { prettyFactory } = createRequire(import.meta.url)('pino-pretty') as { prettyFactory: typeof PrettyFactory };
  return prettyFactory;
}

function wrap(p: Pino): Logger {
  return {
    debug: (event, fields) => p.debug({ event, ...fields }),
    info: (event, fields) => p.info({ event, ...fields }),
    warn: (event, fields) => p.warn({ event, ...fields }),
    error: (event, fields) => p.error({ event, ...fields }),
    child: (fields) => wrap(p.child(plain(fields) as LogFields)),
  };
}

/** Errors as `{name, message, …own fields}` (no stack, no cause), bigints as strings, at any depth. */
function plain(value: unknown, depth = 0): unknown {
  if (value instanceof Error) {
    const extra = Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'cause'));
    return { name: value.name, message: value.message, ...(plain(extra, depth + 1) as object) };
  }
  if (typeof value === 'bigint') return value.toString();
  if (depth > 8 || typeof value !== 'object' || value === null || Buffer.isBuffer(value)) return value;
  if (Array.isArray(value)) return value.map((v) => plain(v, depth + 1));
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v, depth + 1)]));
}

/** json on anything but a terminal (journald, pipes, files), pretty on a terminal. */
export function resolveLogFormat(
  asked: 'json' | 'pretty' | 'auto',
  stream: { isTTY?: boolean },
  env: NodeJS.ProcessEnv = process.env,
): LogFormat {
  if (asked !== 'auto') return asked;
  return stream.isTTY === true && env.JOURNAL_STREAM === undefined ? 'pretty' : 'json';
}

/** A logger that keeps lines in memory, for tests and for commands that print their own output. */
export function createMemoryLogger(level: LogLevel = 'debug'): Logger & { lines: LogFields[] } {
  const lines: LogFields[] = [];
  const logger = createLogger({
    level,
    write: (line) => lines.push(JSON.parse(line) as LogFields),
  });
  return Object.assign(logger, { lines });
}

export const silentLogger: Logger = createLogger({ write: () => undefined, level: 'error' });
