import { redact } from './secrets.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

const LEVEL_RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** syslog priorities, understood by journald when a line starts with `<N>`. */
const SYSLOG_PRIORITY: Record<LogLevel, number> = { debug: 7, info: 6, warn: 4, error: 3 };

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
  /** Prefix lines with a syslog priority so journald records the level. */
  syslogPrefix?: boolean;
  bindings?: LogFields;
}

/** Structured logging: one JSON object per line, secrets scrubbed. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const minRank = LEVEL_RANK[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line));
  const bindings = options.bindings ?? {};
  const emit = (level: LogLevel, event: string, fields?: LogFields): void => {
    if (LEVEL_RANK[level] < minRank) return;
    const record = { time: new Date().toISOString(), level, event, ...bindings, ...fields };
    const json = redact(JSON.stringify(record, errorReplacer));
    write(`${options.syslogPrefix ? `<${SYSLOG_PRIORITY[level]}>` : ''}${json}\n`);
  };
  return {
    debug: (event, fields) => emit('debug', event, fields),
    info: (event, fields) => emit('info', event, fields),
    warn: (event, fields) => emit('warn', event, fields),
    error: (event, fields) => emit('error', event, fields),
    child: (fields) => createLogger({ ...options, bindings: { ...bindings, ...fields } }),
  };
}

function errorReplacer(_key: string, value: unknown): unknown {
  if (value instanceof Error) {
    const extra = Object.fromEntries(Object.entries(value).filter(([k]) => k !== 'cause'));
    return { name: value.name, message: value.message, ...extra };
  }
  if (typeof value === 'bigint') return value.toString();
  return value;
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
