/**
 * The stage split of one build in a fresh process (forked by board-stages.ts): two builds'
 * onnxruntime-node in one process would share one native library.
 */
import './as-hark-runs.js';
import { stageSplit, type StageAudio } from './board-stages.js';

process.once('message', (audio: StageAudio) => {
  void (async () => {
    const build = { name: 'measured', root: process.argv[2] as string };
    process.send?.(await stageSplit(build, audio));
    process.disconnect?.();
  })();
});
