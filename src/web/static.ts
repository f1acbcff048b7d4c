import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PACKAGE_ROOT } from '../system/package-paths.js';

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
};

export const PAGE_DIR = join(PACKAGE_ROOT, 'assets', 'web');

/**
 * uPlot's files, from the installed package: served by hark itself, nothing from the internet.
 * Resolved from the package root, so a bundled entry finds them as the sources do.
 */
function uplotDir(): string {
  return dirname(createRequire(join(PACKAGE_ROOT, 'package.json')).resolve('uplot/dist/uPlot.iife.min.js'));
}

/** The page's files by the path they are served at; nothing else on disk can be asked for. */
function files(): Record<string, string> {
  return {
    '/': join(PAGE_DIR, 'index.html'),
    '/app.js': join(PAGE_DIR, 'app.js'),
    '/charts.js': join(PAGE_DIR, 'charts.js'),
    '/style.css': join(PAGE_DIR, 'style.css'),
    '/vendor/uPlot.iife.min.js': join(uplotDir(), 'uPlot.iife.min.js'),
    '/vendor/uPlot.min.css': join(uplotDir(), 'uPlot.min.css'),
  };
}

export interface StaticFile {
  body: Buffer;
  type: string;
}

/** The page's files, read once when first asked for. */
export class StaticFiles {
  private readonly cache = new Map<string, StaticFile>();
  private paths: Record<string, string> | undefined;

  get(path: string): StaticFile | undefined {
    const cached = this.cache.get(path);
    if (cached) return cached;
    this.paths ??= files();
    const file = this.paths[path];
    if (!file) return undefined;
    const found = { body: readFileSync(file), type: TYPES[file.split('.').pop() ?? ''] ?? 'application/octet-stream' };
    this.cache.set(path, found);
    return found;
  }
}
