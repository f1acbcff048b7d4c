import { describe, expect, it } from 'vitest';
import { LogTail } from '../../../src/system/log-tail.js';
import { createLogger, resolveLogFormat, type LogFields } from '../../../src/system/logger.js';
import { registerSecret } from '../../../src/system/secrets.js';

const SECRET = 'sk-logger-test-7f3a9c21';
registerSecret(SECRET);

function collect(options: Parameters<typeof createLogger>[0] = {}) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', ...options, write: (line) => lines.push(line) });
  return { logger, lines };
}

describe('logger', () => {
  it('writes one JSON object per line: level, time, event, then the fields; errors without stacks', () => {
    const { logger, lines } = collect();
    const error = Object.assign(new Error('stream error overloaded_error'), { status: 529 });
    logger.child({ turn: 3 }).error('turn.failed', { stage: 'reply', error, tokens: 12n });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\{"level":"error","time":"\d{4}-\d\d-\d\dT[\d:.]+Z","turn":3,"event":"turn\.failed"/);
    expect(JSON.parse(lines[0] as string) as LogFields).toMatchObject({
      stage: 'reply',
      error: { name: 'Error', message: 'stream error overloaded_error', status: 529 },
      tokens: '12',
    });
  });

  it('scrubs registered secrets from every line, wherever they appear, in both formats', () => {
    for (const format of ['json', 'pretty'] as const) {
      const { logger, lines } = collect({ format });
      logger.warn('service.echo', { header: `Bearer ${SECRET}`, error: new Error(`bad key ${SECRET}`) });
      expect(lines.join('')).not.toContain(SECRET);
      expect(lines.join('')).toContain('***');
    }
  });

  it('scrubs a secret holding `"` and `\\`, which a JSON line holds escaped', () => {
    const quoted = 'sk-logger-"quote"-\\slash-1a2b';
    registerSecret(quoted);
    for (const format of ['json', 'pretty'] as const) {
      const { logger, lines } = collect({ format });
      logger.error('service.echo', { header: `Bearer ${quoted}`, error: new Error(`bad key ${quoted}`) });
      expect(lines.join(''), format).not.toMatch(/quote|slash/);
    }
  });

  it('keeps the last lines for the status page as JSON, scrubbed, even when the terminal gets pretty lines', () => {
    const tail = new LogTail(2);
    const { logger } = collect({ format: 'pretty', tail });
    logger.info('one');
    logger.info('two', { key: SECRET });
    logger.info('three');
    const kept = tail.recent().map((line) => JSON.parse(line) as LogFields);
    expect(kept.map((line) => line.event)).toEqual(['two', 'three']);
    expect(kept[0]?.key).toBe('***');
  });

  it('prefixes JSON lines with the syslog priority for journald', () => {
    const { logger, lines } = collect({ syslogPrefix: true });
    logger.error('a');
    logger.warn('b');
    logger.info('c');
    logger.debug('d');
    expect(lines.map((l) => l.slice(0, 3))).toEqual(['<3>', '<4>', '<6>', '<7>']);
  });

  it('pretty: one readable line per event, the event as the message and the fields after it', () => {
    const { logger, lines } = collect({ format: 'pretty' });
    logger.info('player.chosen', { player: 'pw-play', reason: 'PipeWire answers' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: player\.chosen \{.*"player":"pw-play".*\}\n$/);
  });

  it('keeps below-level lines out', () => {
    const { logger, lines } = collect({ level: 'warn' });
    logger.info('quiet');
    logger.warn('loud');
    expect(lines).toHaveLength(1);
  });
});

describe('log format', () => {
  it('auto: readable on a terminal, JSON under journald and in pipes', () => {
    expect(resolveLogFormat('auto', { isTTY: true }, {})).toBe('pretty');
    expect(resolveLogFormat('auto', { isTTY: true }, { JOURNAL_STREAM: '8:1234' })).toBe('json');
    expect(resolveLogFormat('auto', { isTTY: false }, {})).toBe('json');
    expect(resolveLogFormat('json', { isTTY: true }, {})).toBe('json');
    expect(resolveLogFormat('pretty', { isTTY: false }, {})).toBe('pretty');
  });
});
