import { createLogger, type LogFields, type Logger } from '../../src/system/logger.js';

/** A logger that keeps its lines and can wait for one: tests wait for what happened, never for a time. */
export function watchedLogger(): Logger & { lines: LogFields[]; line(event: string): Promise<LogFields> } {
  const lines: LogFields[] = [];
  const waiting: { event: string; resolve: (line: LogFields) => void }[] = [];
  const logger = createLogger({
    level: 'debug',
    write: (text) => {
      const line = JSON.parse(text) as LogFields;
      lines.push(line);
      for (const w of waiting.filter((w) => w.event === line.event)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(line);
      }
    },
  });
  return Object.assign(logger, {
    lines,
    line: (event: string) =>
      new Promise<LogFields>((resolve) => {
        const seen = lines.find((l) => l.event === event);
        if (seen) resolve(seen);
        else waiting.push({ event, resolve });
      }),
  });
}
