import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfig, type HarkConfig } from '../../../src/config/schema.js';
import { Hooks } from '../../../src/home/hooks.js';
import { createMemoryLogger } from '../../../src/system/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-hooks-'));
let files = 0;

function hooksConfig(change: (hooks: HarkConfig['hooks']) => void): HarkConfig['hooks'] {
  const config = defaultConfig().hooks;
  change(config);
  return config;
}

/** Timeouts fired by the test, not by time. */
function manualTimers() {
  const due: (() => void)[] = [];
  return {
    after: (_ms: number, work: () => void) => {
      due.push(work);
      return () => due.splice(due.indexOf(work), 1);
    },
    fire: () => due.shift()?.(),
    get pending() {
      return due.length;
    },
  };
}

describe('hooks: a command per moment', () => {
  it("run one at a time, in order, with the moment and state in their environment and none of hark's secrets", async () => {
    const log = join(dir, `log-${++files}`);
    const record = `echo "$HARK_EVENT $HARK_STATE \${HARK_API_KEY:-no key}" >> ${log}`;
    const config = hooksConfig((h) => {
      h.wake = record;
      h.thinking = record;
      h.speaking = `sleep 0.05; ${record}`;
      h.idle = record;
    });
    process.env.HARK_API_KEY = 'sk-must-not-leak-123';
    const hooks = new Hooks(config, createMemoryLogger());
    try {
      hooks.run('wake', 'listening');
      hooks.run('listening', 'listening');
      hooks.run('thinking', 'thinking');
      hooks.run('speaking', 'speaking');
      hooks.run('idle', 'idle');
      await hooks.drained();
    } finally {
      delete process.env.HARK_API_KEY;
    }
    expect(readFileSync(log, 'utf8')).toBe(
      ['wake listening no key', 'thinking thinking no key', 'speaking speaking no key', 'idle idle no key', ''].join(
        '\n',
      ),
    );
  });

  it('one that fails is said in the log once, with its words; its later failures only at debug', async () => {
    const logger = createMemoryLogger('debug');
    const hooks = new Hooks(
      hooksConfig((h) => (h.error = 'echo "no such LED" >&2; exit 3')),
      logger,
    );
    hooks.run('error', 'error');
    await hooks.drained();
    hooks.run('error', 'error');
    await hooks.drained();
    const failures = logger.lines.filter((l) => l.event === 'hook.failed');
    expect(failures.map((l) => l.level)).toEqual(['warn', 'debug']);
    expect(failures[0]).toMatchObject({
      moment: 'error',
      error: 'no such LED',
      fix: expect.stringContaining('sh -c') as unknown,
    });
  });

  it('one still running after its timeout is stopped, and the next runs', async () => {
    const log = join(dir, `log-${++files}`);
    const timers = manualTimers();
    const logger = createMemoryLogger();
    const hooks = new Hooks(
      hooksConfig((h) => {
        // Its shell and the sleep it started: both stopped.
        h.thinking = 'sleep 30; true';
        h.speaking = `echo spoke >> ${log}`;
        h.timeoutMs = 500;
      }),
      logger,
      { after: timers.after },
    );
    hooks.run('thinking', 'thinking');
    hooks.run('speaking', 'speaking');
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(timers.pending).toBe(1);
    timers.fire();
    await hooks.drained();
    expect(readFileSync(log, 'utf8')).toBe('spoke\n');
    expect(logger.lines.find((l) => l.event === 'hook.failed')).toMatchObject({
      moment: 'thinking',
      error: 'still running after 500 ms: stopped',
    });
  });

  it('returns at once, whatever the hook does; a moment without a command runs nothing', () => {
    const started: string[] = [];
    const hooks = new Hooks(
      hooksConfig((h) => (h.speaking = 'sleep 30')),
      createMemoryLogger(),
      {
        start: (command) => {
          started.push(command);
          throw new Error('not started in this test');
        },
        soon: () => undefined,
      },
    );
    hooks.run('speaking', 'speaking');
    hooks.run('thinking', 'thinking');
    expect(started).toEqual([]);
    expect(hooks.any).toBe(true);
    expect(new Hooks(defaultConfig().hooks, createMemoryLogger()).any).toBe(false);
  });
});
