/**
 * Start-up to listening, timed from outside: from spawning `hark run --input FILE` (the voice
 * loop with the default VAD and wake word, a service that is not called before speech) to its
 * `hark.listening` line on stdout. The bundled command that users run beside the unbundled
 * modules tsc writes, alternated, so the machine's noise falls on both alike.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../dist/system/package-paths.js';
import { loadAverage } from './cpu-load.js';
import { FIXTURES } from './fixtures.js';
import { median, monotonicMs, percentile, round, table, writeResult } from './stats.js';

const ENTRIES = {
  'bundled (dist/bin/hark.js)': join(PACKAGE_ROOT, 'dist', 'bin', 'hark.js'),
  'unbundled (dist/cli/main.js)': join(PACKAGE_ROOT, 'dist', 'cli', 'main.js'),
};
const TARGET_MS = 500;

export async function benchStartup(runs = 9) {
  const cache = mkdtempSync(join(tmpdir(), 'hark-compile-cache-'));
  const home = mkdtempSync(join(tmpdir(), 'hark-home-'));
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(ENTRIES).map((k) => [k, []]));
  const firstStart: Record<string, number> = {};
  const averageBefore = loadAverage();
  for (let i = 0; i < runs + 1; i++) {
    for (const [label, entry] of Object.entries(ENTRIES)) {
      const ms = await timeToListening(entry, { HOME: home, CACHE_DIRECTORY: cache });
      if (i === 0) firstStart[label] = ms;
      else times[label]?.push(ms);
    }
  }
  const [bundled, unbundled] = Object.values(times).map((v) => median(v));
  console.log(
    `\nStart-up to listening (spawn -> "hark.listening" on stdout; ${runs} starts each after a first one, alternated; Node ${process.version}; load average ${averageBefore})`,
  );
  console.log(
    table([
      ['entry', 'first start ms', 'median ms', 'p90 ms', `target <= ${TARGET_MS} ms`],
      ...Object.entries(times).map(([label, values]) => [
        label,
        round(firstStart[label] ?? NaN, 0),
        round(median(values), 0),
        round(percentile(values, 90), 0),
        median(values) <= TARGET_MS ? 'met' : 'MISSED',
      ]),
      ['bundled / unbundled (median)', '', round((bundled ?? NaN) / (unbundled ?? NaN), 2), '', ''],
    ]),
  );
  console.log(`wrote ${writeResult('startup', { runs, loadAverage: averageBefore, firstStart, times })}`);
}

function timeToListening(entry: string, env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = monotonicMs();
    const child = spawn(
      process.execPath,
      [entry, 'run', '--input', join(FIXTURES, 'speech', 'speech-b.wav'), '--log-format', 'json'],
      {
        env: {
          PATH: process.env.PATH,
          ...env,
          // Never called: the recording is not played through before hark is stopped.
          HARK_SERVICE_BASE_URL: 'http://127.0.0.1:9',
          HARK_API_KEY: 'startup-bench',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('"hark.listening"')) {
        const ms = monotonicMs() - started;
        child.kill('SIGKILL');
        clearTimeout(timer);
        resolve(ms);
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', () => {
      clearTimeout(timer);
      reject(new Error(`${entry} ended before listening: ${err.slice(-400)}${out.slice(-400)}`));
    });
  });
}
