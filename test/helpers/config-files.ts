import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../src/config/config-error.js';

/** Where the files are made (a temporary directory). */
export const configDir = mkdtempSync(join(tmpdir(), 'hark-config-'));
const dir = configDir;
let n = 0;

/** A config file holding `text`, in a directory of its own. */
export function configFile(text: string): string {
  const path = join(dir, `config-${++n}.yaml`);
  writeFileSync(path, text);
  return path;
}

/** An environment with no user file in reach, so only what the test gives counts. */
export const bare = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'none') };

/** The problems of the ConfigError `run` throws (it must throw one). */
export function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}
