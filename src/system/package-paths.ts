import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** hark's own directory (where package.json, config/ and assets/ are), from src/ or dist/ alike. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)));

/** hark's version, as its package.json says: the installed copy's, also after an upgrade. */
export function packageVersion(): string {
  const manifest = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return manifest.version ?? 'unknown';
}

function findPackageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (existsSync(manifest) && /"name":\s*"hark"/.test(readFileSync(manifest, 'utf8'))) return dir;
    if (dirname(dir) === dir) return resolve(from, '..', '..');
  }
}
