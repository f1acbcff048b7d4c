import type { ChildProcess } from 'node:child_process';
import type { HarkConfig } from '../config/schema.js';
import type { HookMoment } from '../config/home-schema.js';
import type { Logger } from '../system/logger.js';
import { spawnChild } from '../system/spawn.js';
import type { HomeState } from './discovery.js';

/** Moments still to run past this many are dropped, oldest first: the lights show the latest. */
const MAX_WAITING = 8;
/** A hook that outlives SIGTERM by this long is killed. */
const KILL_AFTER_MS = 1000;

type Start = (command: string, env: Record<string, string>) => ChildProcess;

export interface HooksOptions {
  /** Starts a hook's command (default: `sh -c` through hark's one door for children, spawn.ts). */
  start?: Start;
  /** Runs `work` after `ms` (default: a timer); returns what cancels it. */
  after?: (ms: number, work: () => void) => () => void;
  /** Runs `work` once the event loop is free of what it is doing now (default: setImmediate). */
  soon?: (work: () => void) => void;
}

// A process group of its own: stopping the hook stops what its shell started too (a `sleep`, a script).
const shell: Start = (command, env) =>
  spawnChild('/bin/sh', ['-c', command], { stdio: ['ignore', 'ignore', 'pipe'], env, detached: true });

/** Signals the hook's process group, or the hook alone when it has none. */
function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    child.kill(name);
  }
}

const timer = (ms: number, work: () => void): (() => void) => {
  const handle = setTimeout(work, ms);
  return () => clearTimeout(handle);
};

/**
 * The `hooks:` commands, one per moment, run with the moment and hark's state in their
 * environment (HARK_EVENT, HARK_STATE; nothing of hark's secrets: see spawn.ts). Never waited
 * for: a moment is queued and its command started once the event loop is free, one at a time,
 * in order; one that outlives `timeoutMs` is stopped. A hook that fails is said in the log the
 * first time (its moment's later failures at debug).
 */
export class Hooks {
  private readonly waiting: { moment: HookMoment; state: HomeState; command: string }[] = [];
  private running: ChildProcess | undefined;
  private readonly failed = new Set<HookMoment>();
  private dropped = 0;
  private closed = false;
  private readonly start: Start;
  private readonly after: NonNullable<HooksOptions['after']>;
  private readonly soon: NonNullable<HooksOptions['soon']>;
  /** Told whenever a hook has ended. */
  private readonly ended: (() => void)[] = [];

  constructor(
    private readonly config: HarkConfig['hooks'],
    private readonly logger: Logger,
    options: HooksOptions = {},
  ) {
    this.start = options.start ?? shell;
    this.after = options.after ?? timer;
    this.soon = options.soon ?? ((work) => setImmediate(work));
  }

  /** Whether any moment has a command. */
  get any(): boolean {
    return Object.entries(this.config).some(([key, value]) => key !== 'timeoutMs' && value !== null);
  }

  /** Queues the moment's command, if it has one; returns at once. */
  run(moment: HookMoment, state: HomeState): void {
    const command = this.config[moment];
    if (command === null || this.closed) return;
    this.waiting.push({ moment, state, command });
    if (this.waiting.length > MAX_WAITING) {
      this.waiting.shift();
      if (this.dropped++ === 0)
        this.logger.warn('hook.behind', {
          waiting: MAX_WAITING,
          why: 'hooks take longer than the moments they follow; the oldest are skipped',
        });
    }
    if (!this.running && this.waiting.length === 1) this.soon(() => this.next());
  }

  /** Settles once no hook runs or waits. */
  async drained(): Promise<void> {
    while (this.running || this.waiting.length) await new Promise<void>((resolve) => this.ended.push(resolve));
  }

  /** Runs no more; stops the hook under way and settles once it has ended. */
  async close(): Promise<void> {
    this.closed = true;
    this.waiting.length = 0;
    if (this.running) signal(this.running, 'SIGTERM');
    await this.drained();
  }

  private next(): void {
    const hook = this.waiting.shift();
    if (!hook || this.running || this.closed) return;
    let child: ChildProcess;
    try {
      child = this.start(hook.command, { HARK_EVENT: hook.moment, HARK_STATE: hook.state });
    } catch (error) {
      this.report(hook.moment, hook.command, (error as Error).message);
      this.finished();
      return;
    }
    this.running = child;
    let stderr = '';
    let timedOut = false;
    let kill: (() => void) | undefined;
    const cancel = this.after(this.config.timeoutMs, () => {
      timedOut = true;
      signal(child, 'SIGTERM');
      kill = this.after(KILL_AFTER_MS, () => signal(child, 'SIGKILL'));
    });
    child.stderr?.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-300)));
    child.on('error', (error) => stderr || (stderr = error.message));
    child.on('close', (code, signal) => {
      cancel();
      kill?.();
      if (timedOut) this.report(hook.moment, hook.command, `still running after ${this.config.timeoutMs} ms: stopped`);
      else if (code !== 0 && !this.closed) {
        const why =
          stderr.trim().split('\n').at(-1) || (signal ? `killed by ${signal}` : `exit status ${String(code)}`);
        this.report(hook.moment, hook.command, why);
      }
      this.finished();
    });
  }

  private finished(): void {
    this.running = undefined;
    if (this.waiting.length) this.next();
    for (const tell of this.ended.splice(0)) tell();
  }

  private report(moment: HookMoment, command: string, why: string): void {
    const fields = { moment, command, error: why };
    if (this.failed.has(moment)) {
      this.logger.debug('hook.failed', fields);
      return;
    }
    this.failed.add(moment);
    this.logger.warn('hook.failed', {
      ...fields,
      fix: `hooks.${moment} runs as \`sh -c\` with HARK_EVENT and HARK_STATE set; try it in a shell (later failures of it are logged at debug)`,
    });
  }
}
