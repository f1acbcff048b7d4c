/**
 * A small board's CPU, emulated: a cgroup whose processes get at most `percent` of one core
 * (cgroup v2 `cpu.max` where the machine has the cpu controller there, else v1
 * `cpu.cfs_quota_us` over a 20 ms period), with the group's weight at its maximum so that
 * whatever else runs on the machine cannot starve it below that share. What the group's
 * processes used is read from the group's own accounting (v2 `cpu.stat`, v1 `cpuacct.usage`).
 * A command is started inside the group from its first instruction (see `command`).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const PERIOD_US = 20_000;
const V1_MAX_SHARES = 262_144;
const V2_MAX_WEIGHT = 10_000;
/** The kernel's least quota is 1 ms: 5 % of the period. */
const LEAST_PERCENT = 5;

export class CpuCapUnavailable extends Error {}

/** What the bench asks of a small board's CPU, whether it is one core (CpuCap) or several (CoreCaps). */
export interface CpuBudget {
  describe(): string;
  command(command: string, args: readonly string[]): { command: string; args: string[] };
  /** Node options a process needs to be placed (CoreCaps names its threads through a preload). */
  nodeOptions(): string[];
  /** Places the threads of the process `pid` as they come, until it exits. */
  follow(pid: number): void;
  usedMs(): number;
  pids(): number[];
  remove(): Promise<void>;
}

export interface Layout {
  version: 1 | 2;
  /** Where the quota and the weight are written. */
  cpu: string;
  /** Where the usage is read (v1: the cpuacct hierarchy, which may be mounted apart). */
  accounting: string;
}

function mounts(): { dir: string; type: string; options: string[] }[] {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => fields[2] === 'cgroup' || fields[2] === 'cgroup2')
    .map(([, dir, type, options]) => ({ dir: dir ?? '', type: type ?? '', options: (options ?? '').split(',') }));
}

/** Where this machine keeps its cpu controller: v2 when it is there, v1 otherwise. */
export function layout(): Layout {
  const all = mounts();
  const unified = all.find((m) => m.type === 'cgroup2');
  if (unified) {
    const controllers = join(unified.dir, 'cgroup.controllers');
    if (existsSync(controllers) && readFileSync(controllers, 'utf8').split(/\s+/).includes('cpu')) {
      return { version: 2, cpu: unified.dir, accounting: unified.dir };
    }
  }
  const cpu = all.find((m) => m.type === 'cgroup' && m.options.includes('cpu'));
  const accounting = all.find((m) => m.type === 'cgroup' && m.options.includes('cpuacct'));
  if (cpu && accounting) return { version: 1, cpu: cpu.dir, accounting: accounting.dir };
  throw new CpuCapUnavailable(
    'no cgroup cpu controller on this machine (neither cgroup v2 with "cpu" in cgroup.controllers nor cgroup v1 cpu and cpuacct mounts): the small-board bench cannot cap hark',
  );
}

export function write(path: string, value: string): void {
  try {
    writeFileSync(path, value);
  } catch (error) {
    throw new CpuCapUnavailable(
      `cannot write ${value.trim()} to ${path} (${(error as Error).message}): the small-board bench caps hark's CPU with a cgroup and must run as root, with the cpu controller writable`,
    );
  }
}

/** One group: `percent` of one core, or all it can get (undefined), at the highest weight. */
export class CpuCap implements CpuBudget {
  private constructor(
    private readonly layout: Layout,
    readonly dirs: string[],
  ) {}

  /**
   * Makes the group `name` (one left over from an earlier run is reused). Throws
   * CpuCapUnavailable where this machine cannot cap a process's CPU.
   */
  static create(name: string, percent: number | undefined): CpuCap {
    if (percent !== undefined && percent < LEAST_PERCENT)
      throw new RangeError(
        `${percent} % of a core: the kernel's least quota is 1 ms of the ${PERIOD_US / 1000} ms period (5 %)`,
      );
    const where = layout();
    const dirs = [...new Set([join(where.cpu, name), join(where.accounting, name)])];
    for (const dir of dirs) {
      try {
        mkdirSync(dir, { recursive: true });
      } catch (error) {
        throw new CpuCapUnavailable(`cannot make the cgroup ${dir} (${(error as Error).message}): run as root`);
      }
    }
    const cpu = join(where.cpu, name);
    if (where.version === 2) {
      const control = join(where.cpu, 'cgroup.subtree_control');
      if (!readFileSync(control, 'utf8').split(/\s+/).includes('cpu')) write(control, '+cpu');
      const quota = percent === undefined ? 'max' : String(Math.round((PERIOD_US * percent) / 100));
      write(join(cpu, 'cpu.max'), `${quota} ${PERIOD_US}`);
      write(join(cpu, 'cpu.weight'), String(V2_MAX_WEIGHT));
    } else {
      write(join(cpu, 'cpu.cfs_period_us'), String(PERIOD_US));
      const quota = percent === undefined ? -1 : Math.round((PERIOD_US * percent) / 100);
      write(join(cpu, 'cpu.cfs_quota_us'), String(quota));
      write(join(cpu, 'cpu.shares'), String(V1_MAX_SHARES));
      write(join(where.accounting, name, 'cpuacct.usage'), '0');
    }
    return new CpuCap(where, dirs);
  }

  /** How shares are set and CPU read on this machine, for the report. */
  describe(): string {
    if (this.layout.version === 2)
      return `cgroup v2: cpu.max "<share of ${PERIOD_US}> ${PERIOD_US}", cpu.weight ${V2_MAX_WEIGHT}; CPU from cpu.stat`;
    return `cgroup v1: cpu.cfs_period_us ${PERIOD_US}, cpu.cfs_quota_us the share of it, cpu.shares ${V1_MAX_SHARES}; CPU from cpuacct.usage`;
  }

  /**
   * `command args` as a command that enters the group before it runs anything: the shell moves
   * itself into the group, then becomes the command (its children are in the group too).
   */
  command(command: string, args: readonly string[]): { command: string; args: string[] } {
    const enter = this.dirs.map((dir) => `echo $$ > '${join(dir, 'cgroup.procs')}'`).join(' && ');
    return { command: 'sh', args: ['-c', `${enter} && exec "$@"`, 'sh', command, ...args] };
  }

  nodeOptions(): string[] {
    return [];
  }

  /** Every thread of a process started by `command` is in the group already. */
  follow(): void {}

  /** CPU time the group's processes have used since it was made (v1: reset then), ms, children too. */
  usedMs(): number {
    const accounting = this.dirs.at(-1) as string;
    if (this.layout.version === 2) {
      const usage = /^usage_usec (\d+)$/m.exec(readFileSync(join(accounting, 'cpu.stat'), 'utf8'));
      return Number(usage?.[1] ?? NaN) / 1000;
    }
    return Number(readFileSync(join(accounting, 'cpuacct.usage'), 'utf8')) / 1e6;
  }

  /** The group's processes now. */
  pids(): number[] {
    return readFileSync(join(this.dirs[0] as string, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(Number);
  }

  /** Removes the group once its processes have gone (a child of hark's may outlive it by a moment). */
  async remove(): Promise<void> {
    for (let i = 0; i < 50 && this.pids().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    for (const dir of this.dirs) {
      try {
        rmdirSync(dir);
      } catch {
        // A process still in it: the group stays behind (named after this bench's pid).
      }
    }
  }
}
