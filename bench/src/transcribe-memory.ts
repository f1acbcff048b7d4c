/**
 * Peak resident memory of `hark transcribe` on long files: it must not grow with the file's
 * length (target ≤ 120 MB, a Raspberry Pi has 1 GB). The long files are made here from the
 * 71 s test fixture (looped, as 16 kHz mono MP3), never committed. hark runs as the real
 * command in its own process against the stand-in in another; its peak (VmHWM) and ffmpeg's
 * are read from /proc while it works.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runFfmpeg } from '../../dist/audio/ffmpeg.js';
import { PACKAGE_ROOT } from '../../dist/system/package-paths.js';
import { FIXTURES } from './fixtures.js';
import { median, monotonicMs, round, table, writeResult } from './stats.js';

const TARGET_MB = 120;
const HARK = join(PACKAGE_ROOT, 'dist', 'cli', 'main.js');
const POLL_MS = 50;

interface Run {
  minutes: number;
  chunks: number;
  seconds: number;
  harkPeakMB: number;
  ffmpegPeakMB: number;
}

/** A long MP3 made of the fixture, looped. */
async function longFile(dir: string, minutes: number): Promise<string> {
  const path = join(dir, `talk-${minutes}min.mp3`);
  await runFfmpeg([
    '-stream_loop',
    '-1',
    '-i',
    join(FIXTURES, 'monologue-71s.ogg'),
    '-t',
    String(minutes * 60),
    '-ac',
    '1',
    '-ar',
    '16000',
    '-c:a',
    'libmp3lame',
    '-b:a',
    '32k',
    '-y',
    path,
  ]);
  return path;
}

/** Peak resident memory so far (VmHWM) of a process, in MB; 0 once it is gone. */
function peakMB(pid: number): number {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? (Number(kb) * 1024) / 1e6 : 0;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

function startSim(): Promise<{ child: ChildProcess; url: string; apiKey: string }> {
  return new Promise((resolve, reject) => {
    const child = fork(fileURLToPath(new URL('./sim-process.js', import.meta.url)), [
      JSON.stringify({ timing: { transcriptionDelayMs: 1 } }),
    ]);
    child.once('message', (m: { url: string; apiKey: string }) => resolve({ child, ...m }));
    child.once('error', reject);
  });
}

async function transcribe(path: string, minutes: number, sim: { url: string; apiKey: string }): Promise<Run> {
  const started = monotonicMs();
  const child = spawn(process.execPath, [HARK, 'transcribe', '--json', path], {
    env: { PATH: process.env.PATH, HOME: tmpdir(), HARK_SERVICE_BASE_URL: sim.url, HARK_API_KEY: sim.apiKey },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  let harkPeakMB = 0;
  let ffmpegPeakMB = 0;
  const poll = setInterval(() => {
    if (child.pid === undefined) return;
    harkPeakMB = Math.max(harkPeakMB, peakMB(child.pid));
    for (const pid of childrenOf(child.pid)) ffmpegPeakMB = Math.max(ffmpegPeakMB, peakMB(pid));
  }, POLL_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearInterval(poll);
  if (code !== 0) throw new Error(`hark transcribe exited with ${code}`);
  const result = JSON.parse(stdout) as { complete: boolean; chunks: unknown[] };
  if (!result.complete) throw new Error('the transcription was not complete');
  return {
    minutes,
    chunks: result.chunks.length,
    seconds: round((monotonicMs() - started) / 1000, 1),
    harkPeakMB: round(harkPeakMB, 1),
    ffmpegPeakMB: round(ffmpegPeakMB, 1),
  };
}

export async function benchTranscribeMemory(minutesList = [10, 60], runs = 3) {
  const dir = mkdtempSync(join(tmpdir(), 'hark-bench-transcribe-'));
  const sim = await startSim();
  const runsByLength: Record<number, Run[]> = {};
  try {
    for (const minutes of minutesList) {
      const path = await longFile(dir, minutes);
      runsByLength[minutes] = [];
      for (let i = 0; i < runs; i++) runsByLength[minutes].push(await transcribe(path, minutes, sim));
    }
  } finally {
    sim.child.disconnect();
    rmSync(dir, { recursive: true, force: true });
  }
  const rows = Object.values(runsByLength).map((all) => {
    const peaks = all.map((r) => r.harkPeakMB);
    const worst = Math.max(...peaks);
    return [
      `${all[0]?.minutes ?? 0} min MP3`,
      all[0]?.chunks ?? 0,
      median(all.map((r) => r.seconds)),
      median(peaks),
      worst,
      median(all.map((r) => r.ffmpegPeakMB)),
      `≤ ${TARGET_MB}`,
      worst <= TARGET_MB ? 'yes' : 'NO',
    ];
  });
  console.log(
    `\nhark transcribe of long files: peak resident memory (VmHWM, MB = 10^6 bytes), ${runs} runs each, stand-in in another process`,
  );
  console.log(
    table([
      [
        'file',
        'chunks',
        'seconds (median)',
        'hark peak RSS (median)',
        'max of runs',
        'ffmpeg peak RSS',
        'target',
        'met',
      ],
      ...rows,
    ]),
  );
  const path = writeResult('transcribe-memory', { targetMB: TARGET_MB, runs: runsByLength });
  console.log(`(${path})`);
  return runsByLength;
}
