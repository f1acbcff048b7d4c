import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from './logger.js';
import { writeAtomically } from './atomic-file.js';

/**
 * A small JSON file of what must outlive hark (its timers, the announcements it has yet to
 * make), private to its user. Written whole each time (a crash never leaves half of one), the
 * writes queued: the file always holds one complete state, the latest last. Failures are said
 * in the log as `<what>.unreadable` and `<what>.unsaved`, never thrown.
 */
export class JsonFile {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    readonly path: string,
    private readonly what: string,
    private readonly logger: Logger,
  ) {}

  /** What was saved; undefined when there is no file yet, or it cannot be read (said in the log). */
  async read(): Promise<unknown> {
    try {
      return JSON.parse(await readFile(this.path, 'utf8')) as unknown;
    } catch (error) {
      this.unreadable(error);
      return undefined;
    }
  }

  /** Says in the log that what was read cannot be used (unless there was no file). */
  unreadable(error: unknown): void {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    this.logger.warn(`${this.what}.unreadable`, { path: this.path, error: error as Error });
  }

  /** Settles once `value` is written (or its failure logged), after every write asked for before it. */
  save(value: unknown): Promise<void> {
    const text = `${JSON.stringify(value, null, 2)}\n`;
    this.writing = this.writing.then(async () => {
      try {
        await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
        await writeAtomically(this.path, (partial) => writeFile(partial, text, { mode: 0o600 }));
      } catch (error) {
        this.logger.error(`${this.what}.unsaved`, { path: this.path, error: error as Error });
      }
    });
    return this.writing;
  }
}
