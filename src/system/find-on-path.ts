import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Where an executable is, as a shell would find it on `path` (a name with a slash is taken as it is). */
export function findOnPath(binary: string, path: string): string | undefined {
  if (binary.includes('/')) return executable(binary) ? binary : undefined;
  for (const dir of path.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, binary);
    if (executable(candidate)) return candidate;
  }
  return undefined;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
