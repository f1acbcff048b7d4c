/**
 * (f) The listening thread alone at a share: Silero's answers and the wake word's work on one
 * thread, fed at real time the room with sounds after seconds of quiet (each sound's onset is
 * where the wake word scores its look-back). How long each frame's speech probability took is
 * what the barge-in and the end of speech wait for, apart from the main thread and the room.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AS_THE_UNITS, type Build } from './board-hark.js';
import { boardCap } from './cpu-cores.js';
import { percentile } from './stats.js';

export interface ListeningLag {
  frames: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Frames answered more than LATE_MS after they were sent. */
  late: number;
  failure?: string;
}

export const LATE_MS = 200;

/** `audio` (16 kHz mono) through the listening thread of `build`, capped at `share`. */
export async function listeningLag(build: Build, share: number | undefined, audio: Int16Array): Promise<ListeningLag> {
  const dir = mkdtempSync(join(tmpdir(), 'hark-bench-listening-'));
  const file = join(dir, 'audio.raw');
  writeFileSync(file, Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength));
  const cap = boardCap(
    `hark-bench-${process.pid}-listening-${share ?? 'uncapped'}-${build.name.replace(/\W/g, '')}`,
    share,
  );
  try {
    const script = fileURLToPath(new URL('./board-listening-run.js', import.meta.url));
    const { command, args } = cap.command(process.execPath, [script, build.root, file]);
    const child = spawn(command, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...AS_THE_UNITS,
        NODE_OPTIONS: [AS_THE_UNITS.NODE_OPTIONS, ...cap.nodeOptions()].join(' '),
      },
    });
    if (child.pid !== undefined) cap.follow(child.pid);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    if (code !== 0)
      return {
        frames: 0,
        p50Ms: NaN,
        p99Ms: NaN,
        maxMs: NaN,
        late: 0,
        failure: `exited ${code}: ${err.trim().slice(-300)}`,
      };
    const { answerMs } = JSON.parse(out) as { answerMs: number[] };
    return {
      frames: answerMs.length,
      p50Ms: percentile(answerMs, 50),
      p99Ms: percentile(answerMs, 99),
      maxMs: Math.max(...answerMs),
      late: answerMs.filter((ms) => ms > LATE_MS).length,
    };
  } finally {
    await cap.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}
