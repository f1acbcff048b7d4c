/** Small statistics and reporting helpers shared by the benchmarks. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

export function round(value: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** How a figure stands against its target, in every bench's table. */
export const met = (ok: boolean): string => (ok ? 'met' : 'MISSED');

export function table(rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0]?.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length))) ?? [];
  const line = (r: string[]) => r.map((cell, c) => cell.padEnd(widths[c] ?? 0)).join(' | ');
  const [head, ...body] = cells;
  return [line(head ?? []), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)].join('\n');
}

const RESULTS_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'results');

export function writeResult(name: string, data: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = join(RESULTS_DIR, `${name}.json`);
  writeFileSync(
    path,
    `${JSON.stringify({ name, at: new Date().toISOString(), node: process.version, ...(data as object) }, null, 2)}\n`,
  );
  return path;
}

export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Linux's clock ticks per second (getconf CLK_TCK), the unit of /proc/<pid>/stat's CPU times. */
export const TICKS_PER_S = 100;

/** CPU time a process has used so far (user and system, all threads), in clock ticks. */
export function cpuTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime: fields 14 and 15 of the whole line, 12 and 13 after the command's name.
  return Number(fields[11]) + Number(fields[12]);
}
