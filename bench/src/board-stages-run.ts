/**
 * The stage split of one build in a fresh process (forked by board-stages.ts): two builds'
 * onnxruntime-node in one process would share one native library. The process takes the measured
 * build's own V8 settings (its `compileEarly`, as its `hark` command does) and then runs the
 * split on a worker thread, as hark runs its listening path: the thread's heap is made with them.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { StageAudio, StageSplit } from './board-stages.js';

const audio = new Promise<StageAudio>((resolve) => process.once('message', (m) => resolve(m as StageAudio)));
const root = process.argv[2] as string;
const settings = join(root, 'dist', 'system', 'compile-early.js');
if (existsSync(settings)) {
  const { compileEarly } = (await import(settings)) as { compileEarly: () => void };
  compileEarly();
}
const thread = new Worker(new URL('./board-stages-thread.js', import.meta.url), {
  workerData: { root, audio: await audio },
});
const split = await new Promise<StageSplit>((resolve, reject) => {
  thread.once('message', (m) => resolve(m as StageSplit));
  thread.once('error', reject);
});
process.send?.(split);
process.disconnect?.();
