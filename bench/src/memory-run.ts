/** One memory run in a fresh process (forked by memory.ts). */
import './as-hark-runs.js';
import { memoryRun } from './memory.js';

const result = await memoryRun(Number(process.argv[2] ?? 200));
process.send?.(result);
process.disconnect?.();
