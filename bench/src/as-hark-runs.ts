/**
 * Imported first by the benchmarks that time or weigh hark's own process: the V8 setting the
 * `hark` command starts with (src/cli/hark.ts), before the rest of hark is loaded.
 */
import { compileEarly } from '../../dist/system/compile-early.js';

compileEarly();
