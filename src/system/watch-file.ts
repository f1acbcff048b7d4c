import { watch, watchFile, unwatchFile, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/** Changes this close together are told once. */
const DEBOUNCE_MS = 100;
/** Where the directory cannot be watched (no inotify watches left), the file is looked at this often. */
const POLL_MS = 2000;

/**
 * Calls `changed` (debounced) whenever the file is written, replaced by a rename or removed: its
 * directory is watched, since a file replaced whole is a new file. Returns what stops watching.
 * Keeps no process alive on its own.
 */
export function watchForChanges(path: string, changed: () => void, onFallback?: (error: Error) => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const soon = (): void => {
    clearTimeout(timer);
    timer = setTimeout(changed, DEBOUNCE_MS);
    timer.unref();
  };
  const name = basename(path);
  let watcher: FSWatcher | undefined;
  const poll = (error: Error): void => {
    watcher?.close();
    watcher = undefined;
    onFallback?.(error);
    watchFile(path, { interval: POLL_MS, persistent: false }, soon);
  };
  try {
    watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
      if (file === null || file === name) soon();
    });
    watcher.on('error', poll);
  } catch (error) {
    poll(error as Error);
  }
  return () => {
    clearTimeout(timer);
    watcher?.close();
    unwatchFile(path, soon);
  };
}
