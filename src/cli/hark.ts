#!/usr/bin/env node
// The `hark` command. Where Node can (22 and later), V8's compiled code is kept between starts
// (systemd's CacheDirectory when it gives one, else Node's default under the temporary directory),
// so a start after the first skips compiling hark.
import module from 'node:module';
import { compileEarly } from '../system/compile-early.js';

compileEarly();
const cacheable = module as { enableCompileCache?: (directory?: string) => unknown };
cacheable.enableCompileCache?.(process.env.CACHE_DIRECTORY);
await import('./main.js');
