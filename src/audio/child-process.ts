import type { ChildProcess } from 'node:child_process';

/** Ends a player process's input and waits for it to finish playing, killing it after `waitMs`. */
export function endAndWait(child: ChildProcess, waitMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), waitMs);
    child.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    child.stdin?.end();
  });
}
