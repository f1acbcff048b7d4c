/**
 * Resident memory after 200 turns against after 10: the daemon must not grow. Each run is a
 * fresh process (allocator behaviour differs from run to run on a shared machine); the table
 * shows every run and the median growth.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Observable } from 'rxjs';
import { bufferOf } from '../../dist/audio/pcm.js';
import { concatSamples, silence, speechClip } from './fixtures.js';
import { runToEnd, startLoop } from './loop-harness.js';
import { median, round, table, writeResult } from './stats.js';

const CHECKPOINTS = [10, 50, 100, 150, 200];

interface RunResult {
  rssMiB: Record<number, number>;
  heapMiB: Record<number, number>;
  turns: number;
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with node --expose-gc');
  gc();
  gc();
}

/** One run, in this process: utterances one at a time, each as soon as the previous turn is over. */
export async function memoryRun(turns: number): Promise<RunResult> {
  const clip = concatSamples([(await speechClip()).samples, silence(1200)]);
  const chunks: Buffer[] = [];
  for (let at = 0; at < clip.length; at += 512) chunks.push(bufferOf(clip.subarray(at, at + 512)));
  const result: RunResult = { rssMiB: {}, heapMiB: {}, turns: 0 };
  let completed = (): number => 0;
  const source = () =>
    new Observable<Buffer>((subscriber) => {
      let turn = 0;
      const next = (): void => {
        if (turn === turns) return subscriber.complete();
        turn++;
        for (const chunk of chunks) subscriber.next(chunk);
        const waitFor = turn;
        const poll = setInterval(() => {
          if (completed() < waitFor) return;
          clearInterval(poll);
          if (CHECKPOINTS.includes(waitFor)) {
            collectGarbage();
            const usage = process.memoryUsage();
            result.rssMiB[waitFor] = round(usage.rss / 2 ** 20, 1);
            result.heapMiB[waitFor] = round(usage.heapUsed / 2 ** 20, 1);
          }
          next();
        }, 1);
      };
      next();
    });
  const loop = await startLoop({
    timing: { ttftMs: 1, tokensPerSecond: 5000, ttsFirstByteMs: 1, ttsRealtimeFactor: 1000, transcriptionDelayMs: 1 },
    source,
    realtime: false,
    keepOutcomes: false,
  });
  completed = () => loop.completedTurns();
  for (let i = 0; i < turns; i++) await loop.sim.transcript(`Turn ${i + 1}: what is the weather like?`);
  await runToEnd(loop);
  await loop.close();
  result.turns = loop.completedTurns();
  return result;
}

interface Setting {
  flags: string[];
  env?: Record<string, string>;
}

/**
 * Node's defaults, and what systemd/hark.service runs with: a smaller young generation for a small
 * machine, then also glibc's malloc handing large blocks back when they are freed.
 */
const SETTINGS: Record<string, Setting> = {
  'node defaults': { flags: [] },
  'hark.service (--max-semi-space-size=2)': { flags: ['--max-semi-space-size=2'] },
  'hark.service (and MALLOC_MMAP_THRESHOLD_)': {
    flags: ['--max-semi-space-size=2'],
    env: { MALLOC_MMAP_THRESHOLD_: '131072' },
  },
};

/** The bench's environment less what a setting decides, so that a shell's settings do not leak into every row. */
function inheritedEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _flags, MALLOC_MMAP_THRESHOLD_: _threshold, ...rest } = process.env;
  return rest;
}

function runInChild(turns: number, { flags, env }: Setting): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./memory-run.js', import.meta.url)), [String(turns)], {
      execArgv: ['--expose-gc', ...flags],
      env: { ...inheritedEnv(), ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    child.once('message', (m) => resolve(m as RunResult));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`memory run exited with ${code}`)));
  });
}

export async function benchMemory(runs = 3, turns = 200) {
  const rows: (string | number)[][] = [];
  const summary: Record<
    string,
    { medianRssAfter10: number; medianRssAfter200: number; medianGrowthMiB: number; medianLateGrowthMiB: number }
  > = {};
  const all: Record<string, RunResult[]> = {};
  for (const [label, setting] of Object.entries(SETTINGS)) {
    const results: RunResult[] = [];
    for (let i = 0; i < runs; i++) results.push(await runInChild(turns, setting));
    all[label] = results;
    const growth = results.map((r) => (r.rssMiB[200] ?? NaN) - (r.rssMiB[10] ?? NaN));
    const late = results.map((r) => (r.rssMiB[200] ?? NaN) - (r.rssMiB[100] ?? NaN));
    summary[label] = {
      medianRssAfter10: median(results.map((r) => r.rssMiB[10] ?? NaN)),
      medianRssAfter200: median(results.map((r) => r.rssMiB[200] ?? NaN)),
      medianGrowthMiB: round(median(growth), 1),
      medianLateGrowthMiB: round(median(late), 1),
    };
    results.forEach((r, i) =>
      rows.push([
        label,
        i + 1,
        ...CHECKPOINTS.map((c) => r.rssMiB[c] ?? NaN),
        r.heapMiB[10] ?? NaN,
        r.heapMiB[200] ?? NaN,
        round(growth[i] ?? NaN, 1),
        round(late[i] ?? NaN, 1),
      ]),
    );
  }
  console.log(
    `\nMemory over ${turns} turns (real voice loop; stand-in in another process; full GC before each reading; ${runs} fresh processes per setting; MiB)`,
  );
  console.log(
    table([
      ['setting', 'run', ...CHECKPOINTS.map((c) => `RSS@${c}`), 'heap@10', 'heap@200', 'RSS 10->200', 'RSS 100->200'],
      ...rows,
    ]),
  );
  for (const [label, s] of Object.entries(summary)) {
    console.log(
      `${label}: median RSS ${s.medianRssAfter10} -> ${s.medianRssAfter200} MiB from turn 10 to 200 (${s.medianGrowthMiB >= 0 ? '+' : ''}${s.medianGrowthMiB}); from 100 to 200: ${s.medianLateGrowthMiB >= 0 ? '+' : ''}${s.medianLateGrowthMiB}`,
    );
  }
  const path = writeResult('memory', { runs, turns, summary, results: all });
  console.log(`wrote ${path}`);
}
