/**
 * The real `hark run` of one build, started inside a CPU cap, as systemd/hark.service starts it
 * (NODE_OPTIONS=--max-semi-space-size=2, MALLOC_MMAP_THRESHOLD_=131072) with the default
 * configuration, pointed at the stand-in.
 * Its log lines are kept with when the bench read them; its memory is read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CpuBudget } from './cpu-cap.js';

/** The environment systemd/hark.service gives Node and glibc's malloc. */
export const AS_THE_UNITS = { NODE_OPTIONS: '--max-semi-space-size=2', MALLOC_MMAP_THRESHOLD_: '131072' };

/** One build of hark: a checkout with `dist` built. */
export interface Build {
  name: string;
  root: string;
}

export interface LogLine {
  event: string;
  /** When the bench read it (performance.now()). */
  readAt: number;
  [field: string]: unknown;
}

export interface Memory {
  peakMiB: number;
  residentMiB: number;
}

/** Log events that say the listener fell behind, changed pace or dropped audio. */
export const BEHIND_EVENTS = ['listen.behind', 'listen.pace', 'listen.dropped', 'listen.caught-up'] as const;

export interface StartOptions {
  build: Build;
  cap: CpuBudget;
  args: string[];
  service: { url: string; apiKey: string };
  /** More environment: the sound server's, config overrides. */
  env?: NodeJS.ProcessEnv;
}

export class HarkProcess {
  readonly lines: LogLine[] = [];
  readonly exited: Promise<number | null>;
  /** Its memory as last read, every half second while it runs (a run that ends by itself is read before it ends). */
  lastMemory: Memory | undefined;
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    home: string,
  ) {
    let pending = '';
    child.stdout?.on('data', (d: Buffer) => {
      const readAt = performance.now();
      pending += d.toString();
      const parts = pending.split('\n');
      pending = parts.pop() ?? '';
      for (const part of parts) {
        try {
          this.lines.push({ ...(JSON.parse(part) as { event: string }), readAt });
        } catch {
          // Not a log line (a child's output): kept with stderr for a failure's message.
          this.stderr = (this.stderr + part + '\n').slice(-4000);
        }
      }
    });
    child.stderr?.on('data', (d: Buffer) => (this.stderr = (this.stderr + d.toString()).slice(-4000)));
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    const watch = setInterval(() => (this.lastMemory = this.memory() ?? this.lastMemory), 500);
    void this.exited.then(() => {
      clearInterval(watch);
      rmSync(home, { recursive: true, force: true });
    });
  }

  static start({ build, cap, args, service, env = {} }: StartOptions): HarkProcess {
    // A home of its own: no user's config, timers or cache (HARK_CONFIG: the defaults, from an empty file).
    const home = mkdtempSync(join(tmpdir(), 'hark-board-'));
    writeFileSync(join(home, 'config.yaml'), '');
    const { command, args: wrapped } = cap.command(process.execPath, [
      ...profiling(),
      join(build.root, 'dist', 'bin', 'hark.js'),
      'run',
      ...args,
    ]);
    const child = spawn(command, wrapped, {
      cwd: home,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: join(home, 'config'),
        XDG_STATE_HOME: join(home, 'state'),
        XDG_CACHE_HOME: join(home, 'cache'),
        HARK_CONFIG: join(home, 'config.yaml'),
        NODE_OPTIONS: [AS_THE_UNITS.NODE_OPTIONS, ...cap.nodeOptions()].join(' '),
        MALLOC_MMAP_THRESHOLD_: AS_THE_UNITS.MALLOC_MMAP_THRESHOLD_,
        HARK_SERVICE_BASE_URL: service.url,
        HARK_API_KEY: service.apiKey,
        // The status page on any free port, so that runs side by side do not clash.
        HARK_WEB_LISTEN: '127.0.0.1:0',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    if (child.pid !== undefined) cap.follow(child.pid);
    return new HarkProcess(child, home);
  }

  get pid(): number {
    return this.child.pid ?? NaN;
  }

  /** The first log line since `from` (an index into `lines`) that matches, or undefined after `timeoutMs` or an exit. */
  async next(matches: (line: LogLine) => boolean, timeoutMs: number, from = 0): Promise<LogLine | undefined> {
    const until = performance.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => (exited = true));
    for (;;) {
      const found = this.lines.slice(from).find(matches);
      if (found || exited || performance.now() > until) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  event(name: string, timeoutMs: number, from = 0): Promise<LogLine | undefined> {
    return this.next((line) => line.event === name, timeoutMs, from);
  }

  all(name: string): LogLine[] {
    return this.lines.filter((line) => line.event === name);
  }

  /** Peak (VmHWM) and current (VmRSS) resident memory, undefined once it has exited. */
  memory(): Memory | undefined {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
      return { peakMiB: kib('VmHWM') / 1024, residentMiB: kib('VmRSS') / 1024 };
    } catch {
      return undefined;
    }
  }

  /** SIGTERM (hark stops in order), SIGKILL should it not exit within `graceMs`. */
  async stop(graceMs = 30_000): Promise<void> {
    this.child.kill('SIGTERM');
    const killed = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(killed);
  }

  /** What it wrote that was not a log line, and its last log lines: for a failure's message. */
  tail(): string {
    const last = this.lines.slice(-8).map(({ readAt: _, ...line }) => JSON.stringify(line));
    return `${this.stderr.trim()}\n${last.join('\n')}`.trim();
  }
}

/** The log's ISO time of a line, ms since the epoch. */
export function loggedAt(line: LogLine): number {
  return Date.parse(String(line.time));
}

/**
 * HARK_BENCH_PROFILE=<dir>: a CPU profile of every hark, each of its threads in a file of its own
 * (Node takes --cpu-prof on the command line only, not in NODE_OPTIONS). It costs CPU: the
 * figures of a run with it are not the build's.
 */
function profiling(): string[] {
  const dir = process.env.HARK_BENCH_PROFILE;
  return dir ? ['--cpu-prof', '--cpu-prof-interval', '1000', `--cpu-prof-dir=${dir}`] : [];
}
