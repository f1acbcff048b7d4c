/**
 * Warm start: what the first turn's critical path costs in hark's own code when the process is
 * fresh, with the daemon's warm-up before listening (the text stages, the judgement of words,
 * the requests built and checked, one make-believe turn) beside the text stages alone; each in
 * its own fresh process, alternated. The warm-up's own time is paid before listening (see `startup`).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { median, percentile, round, table, writeResult } from './stats.js';

interface Sample {
  warmUpMs: number;
  requestMs: number;
  turnMs: number;
}

function runInChild(mode: 'full' | 'text'): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./warm-start-run.js', import.meta.url)), [mode], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m) => resolve(m as Sample));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`warm-start run exited with ${code}`)));
  });
}

export async function benchWarmStart(runs = 9) {
  const samples: Record<'full' | 'text', Sample[]> = { full: [], text: [] };
  for (let i = 0; i < runs; i++) {
    samples.text.push(await runInChild('text'));
    samples.full.push(await runInChild('full'));
  }
  const cells = (mode: 'full' | 'text', key: keyof Sample) => {
    const values = samples[mode].map((s) => s[key]);
    return `${round(median(values), 2)} (p90 ${round(percentile(values, 90), 2)})`;
  };
  console.log(`\nWarm start (${runs} fresh processes each, alternated; ms, median and p90)`);
  console.log(
    table([
      ['first turn, hark code on the critical path', 'warm-up of the text stages only', 'full warm-up (default)'],
      [
        'judge the words, build + check + serialize the chat request',
        cells('text', 'requestMs'),
        cells('full', 'requestMs'),
      ],
      ["a turn's speaking half (make-believe reply, voice, player)", cells('text', 'turnMs'), cells('full', 'turnMs')],
      ['the warm-up itself, before listening', cells('text', 'warmUpMs'), cells('full', 'warmUpMs')],
    ]),
  );
  const path = writeResult('warm-start', { runs, samples });
  console.log(`wrote ${path}`);
}
