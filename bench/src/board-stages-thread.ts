/** The stage split on a worker thread (started by board-stages-run.ts). */
import { parentPort, workerData } from 'node:worker_threads';
import { stageSplit, type StageAudio } from './board-stages.js';

const { root, audio } = workerData as { root: string; audio: StageAudio };
parentPort?.postMessage(await stageSplit({ name: 'measured', root }, audio));
