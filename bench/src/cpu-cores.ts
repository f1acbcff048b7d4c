/**
 * A small board with several slow cores, emulated (cgroup v1 only: v2 moves a thread apart only
 * in a threaded subtree). The boards hark runs on have four cores; a Pi 3 or Zero 2 W core is
 * worth about 7 % of this machine's. One group per core that matters: hark's main thread in one,
 * its worker threads (the listening thread) in another, and every other thread of it and every
 * process it starts (arecord, the player) in the rest, worth the remaining cores. A thread starts
 * in its creator's group; the bench moves it as soon as it sees it (every 20 ms).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuCap, CpuCapUnavailable, layout, write, type CpuBudget } from './cpu-cap.js';

/** How many cores the emulated board has: HARK_BENCH_CORES, 1 by default (one group, CpuCap). */
export const CORES = Number(process.env.HARK_BENCH_CORES ?? 1);
const PLACE_EVERY_MS = 20;

/** The CPU of a board at `percent` of one of this machine's cores per core (uncapped: undefined). */
export function boardCap(name: string, percent: number | undefined): CpuBudget {
  if (CORES === 1 || percent === undefined) return CpuCap.create(name, percent);
  return CoreCaps.create(name, percent, CORES);
}

export class CoreCaps implements CpuBudget {
  /** Where each thread was last put. */
  private readonly placed = new Map<number, CpuCap>();
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly main: CpuCap,
    private readonly workers: CpuCap,
    private readonly rest: CpuCap,
    private readonly percent: number,
    private readonly cores: number,
    /** Where the preload writes the ids of a process's worker threads. */
    private readonly dir: string,
  ) {}

  static create(name: string, percent: number, cores: number): CoreCaps {
    if (!Number.isInteger(cores) || cores < 3)
      throw new RangeError(`HARK_BENCH_CORES=${cores}: 1, or 3 and more (the main thread, the workers, the rest)`);
    if (layout().version !== 1)
      throw new CpuCapUnavailable(
        `HARK_BENCH_CORES=${cores} places hark's threads in groups of their own, which needs cgroup v1 (this machine has v2)`,
      );
    const dir = mkdtempSync(join(tmpdir(), 'hark-bench-threads-'));
    writeFileSync(
      join(dir, 'preload.cjs'),
      [
        "const { isMainThread } = require('node:worker_threads');",
        'if (!isMainThread) {',
        "  const tid = require('node:fs').readlinkSync('/proc/thread-self').split('/').pop();",
        `  require('node:fs').appendFileSync(${JSON.stringify(dir)} + '/workers-' + process.pid, tid + '\\n');`,
        '}',
      ].join('\n'),
    );
    return new CoreCaps(
      CpuCap.create(`${name}-main`, percent),
      CpuCap.create(`${name}-workers`, percent),
      CpuCap.create(`${name}-rest`, percent * (cores - 2)),
      percent,
      cores,
      dir,
    );
  }

  describe(): string {
    return `${this.cores} cores of ${this.percent} % each (cgroup v1 per thread: the main thread, the worker threads, the rest at ${this.cores - 2} cores); ${this.main.describe()}`;
  }

  command(command: string, args: readonly string[]): { command: string; args: string[] } {
    return this.main.command(command, args);
  }

  nodeOptions(): string[] {
    return ['--require', join(this.dir, 'preload.cjs')];
  }

  follow(pid: number): void {
    this.timer = setInterval(() => this.place(pid), PLACE_EVERY_MS);
    this.timer.unref();
  }

  usedMs(): number {
    return this.main.usedMs() + this.workers.usedMs() + this.rest.usedMs();
  }

  pids(): number[] {
    return [...new Set([...this.main.pids(), ...this.workers.pids(), ...this.rest.pids()])];
  }

  async remove(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([this.main.remove(), this.workers.remove(), this.rest.remove()]);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Moves the threads of `pid` not yet where they belong, and the processes it started, out of the main thread's group. */
  private place(pid: number): void {
    const workers = new Set(lines(join(this.dir, `workers-${pid}`)));
    for (const tid of lines(`/proc/${pid}/task`, true)) {
      if (tid === pid) continue;
      const group = workers.has(tid) ? this.workers : this.rest;
      if (this.placed.get(tid) === group) continue;
      if (enter(group, 'tasks', tid)) this.placed.set(tid, group);
    }
    for (const child of this.main.pids()) if (child !== pid) enter(this.rest, 'cgroup.procs', child);
  }
}

/** The numbers in a file, one per line (or the names in a folder): none once it is gone. */
function lines(path: string, folder = false): number[] {
  try {
    const text = folder ? readdirSync(path) : readFileSync(path, 'utf8').split('\n');
    return text.filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Moves a thread (`tasks`) or a process (`cgroup.procs`) into `group`; false if it has gone meanwhile. */
function enter(group: CpuCap, file: 'tasks' | 'cgroup.procs', id: number): boolean {
  try {
    for (const dir of group.dirs) write(join(dir, file), String(id));
    return true;
  } catch {
    return false;
  }
}
