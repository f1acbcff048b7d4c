/** One half of the latency bench (quiet or busy) in a fresh process, so its first turn is hark's first (forked by latency.ts). */
import './as-hark-runs.js';
import { runTurns } from './latency.js';

const run = await runTurns(Number(process.argv[2] ?? 10), process.argv[3] === 'busy');
process.send?.(run);
process.disconnect?.();
