/**
 * Start-up to listening, timed from outside: from spawning `hark run --input FILE` (the voice
 * loop with the default VAD and wake word, a service that is not called before speech) to its
 * `hark.listening` line on stdout, when its input is open and what it hears is kept; and to its
 * models having loaded (they load while it listens; what was heard meanwhile is then scored, see
 * LoadingVad and LoadingWakeWord). The bundled command that users run beside the unbundled modules tsc
 * writes, alternated, so the machine's noise falls on both alike.
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
  const starts: Record<string, Start[]> = Object.fromEntries(Object.keys(ENTRIES).map((k) => [k, []]));
  const firstStart: Record<string, Start> = {};
  const averageBefore = loadAverage();
  for (let i = 0; i < runs + 1; i++) {
    for (const [label, entry] of Object.entries(ENTRIES)) {
      const start = await timeStart(entry, { HOME: home, CACHE_DIRECTORY: cache });
      if (i === 0) firstStart[label] = start;
      else starts[label]?.push(start);
    }
  }
  const listening = (label: string): number[] => (starts[label] ?? []).map((s) => s.listening);
  const ready = (label: string): number[] => (starts[label] ?? []).map((s) => s.ready);
  const [bundled, unbundled] = Object.keys(ENTRIES).map((label) => median(listening(label)));
  console.log(
    `\nStart-up (spawn -> "hark.listening" on stdout; then -> "vad.ready" and "wake.ready"; ${runs} starts each after a first one, alternated; Node ${process.version}; load average ${averageBefore})`,
  );
  console.log(
    table([
      [
        'entry',
        'first start: listening / models ms',
        'listening median ms',
        'listening p90 ms',
        `target <= ${TARGET_MS} ms`,
        'models loaded median ms',
        'p90 ms',
      ],
      ...Object.keys(ENTRIES).map((label) => [
        label,
        `${round(firstStart[label]?.listening ?? NaN, 0)} / ${round(firstStart[label]?.ready ?? NaN, 0)}`,
        round(median(listening(label)), 0),
        round(percentile(listening(label), 90), 0),
        median(listening(label)) <= TARGET_MS ? 'met' : 'MISSED',
        round(median(ready(label)), 0),
        round(percentile(ready(label), 90), 0),
      ]),
      ['bundled / unbundled (listening median)', '', round((bundled ?? NaN) / (unbundled ?? NaN), 2), '', '', '', ''],
    ]),
  );
  console.log(`wrote ${writeResult('startup', { runs, loadAverage: averageBefore, firstStart, starts })}`);
}

/** Milliseconds from spawning hark to its listening (its microphone open), and to both models having loaded. */
interface Start {
  listening: number;
  ready: number;
}

/** Log lines of the models loading while hark listens (the default VAD and wake word). */
const LOADED = ['"vad.ready"', '"wake.ready"'];

function timeStart(entry: string, env: Record<string, string>): Promise<Start> {
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
    let listening: number | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (listening === undefined && out.includes('"hark.listening"')) listening = monotonicMs() - started;
      if (listening !== undefined && LOADED.every((line) => out.includes(line))) {
        const ready = monotonicMs() - started;
        child.kill('SIGKILL');
        clearTimeout(timer);
        resolve({ listening, ready });
      }
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('close', () => {
      clearTimeout(timer);
      reject(new Error(`${entry} ended before listening with its models loaded: ${err.slice(-400)}${out.slice(-400)}`));
    });
  });
}
