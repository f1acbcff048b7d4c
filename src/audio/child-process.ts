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

/**
 * The one line of a dying process's stderr that says why: the error line of a Node.js crash
 * (`Error: Cannot find module 'speaker'`), else the last line that is not a stack frame, a
 * source excerpt, a brace or Node's version banner.
 */
export function lastWords(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const error = lines.find((line) => /^([A-Z]\w*)?Error(\s\[\w+\])?: /.test(line));
  if (error) return error;
  const meaningful = lines.filter(
    (line) =>
      !/^at\s/.test(line) &&
      !/^Node\.js v\d/.test(line) &&
      !/^[\s{}[\]()^,;]*$/.test(line) &&
      !/^(code|errno|syscall|requireStack|path):/.test(line) &&
      !/^\/.*:\d+$/.test(line) &&
      !/^- \//.test(line),
  );
  return meaningful.at(-1) ?? '';
}
