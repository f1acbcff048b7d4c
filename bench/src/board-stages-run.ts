/**
 * The stage split of one build in a fresh process (forked by board-stages.ts): two builds'
 * onnxruntime-node in one process would share one native library.
 */
import './as-hark-runs.js';
import { stageCpu } from './board-stages.js';

process.once('message', (audio: { silence: Int16Array; speech: Int16Array }) => {
  void (async () => {
    const build = { name: 'measured', root: process.argv[2] as string };
    process.send?.({ silence: await stageCpu(build, audio.silence), speech: await stageCpu(build, audio.speech) });
    process.disconnect?.();
  })();
});
