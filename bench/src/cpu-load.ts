import { spawn } from 'node:child_process';
import { availableParallelism, loadavg } from 'node:os';

/**
 * Busy processes, one per core, at the same priority as hark: the machine "under load" that
 * the overhead targets are stated for. Returns a function that stops them.
 */
export function loadEveryCore(): () => void {
  const spinners = Array.from({ length: availableParallelism() }, () =>
    spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore', env: {} }),
  );
  return () => spinners.forEach((child) => child.kill('SIGKILL'));
}

export function loadAverage(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}
