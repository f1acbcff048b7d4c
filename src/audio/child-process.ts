import type { ChildProcess } from 'node:child_process';
import type { SchedulerLike } from 'rxjs';

/** Ends a player process's input and waits for it to finish playing, killing it after `waitMs`. */
export function endAndWait(child: ChildProcess, waitMs: number, scheduler: SchedulerLike): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const kill = scheduler.schedule(() => child.kill('SIGKILL'), waitMs);
    child.once('close', () => {
      kill.unsubscribe();
      resolve();
    });
    child.stdin?.end();
  });
}
