/**
 * (a) The wake word heard on a small board: `hark run --input` of the room with the wake word in
 * it, in real time, capped. Said 1 s after hark starts listening (a fresh hark per clip: its
 * models may still be loading, or it may be catching up), and after 10 s of the room (one hark
 * hears them all, each cut to the wake word alone so that no turn follows). Heard: a `wake` log
 * line at the clip's labelled wake word (by its stream time `atMs`; a build whose line has none:
 * by when it was logged after `hark.listening`).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { boardCap } from './cpu-cores.js';
import { BEHIND_EVENTS, HarkProcess, loggedAt, type Build, type LogLine } from './board-hark.js';
import { overRoom, writeWav, type WakePiece } from './board-audio.js';
import { RATE } from './wake-audio.js';

export interface WakeRun {
  condition: '1 s after start' | 'after 10 s of room';
  clips: { name: string; heard: boolean; afterWakeEndMs?: number; latencyMs?: number; atMsLogged: boolean }[];
  /** listen.behind / listen.pace / listen.dropped / listen.caught-up lines, as logged. */
  behind: Record<string, unknown>[];
  turns: number;
  peakMiB: number;
  cpuMs: number;
  exitCode: number | null;
  /** Why the run failed, if it did (hark did not start, did not end). */
  failure?: string;
}

const LOOK_BEFORE_MS = 500;
const TAIL_MS = 2500;
const AFTER_START_MS = 1000;
const ROOM_BEFORE_MS = 10_000;

/** Where each clip's wake word lands in the input, and the input. */
function layOut(
  clips: WakePiece[],
  condition: WakeRun['condition'],
): { input: Int16Array; wakes: { startMs: number; endMs: number }[] } {
  const parts: { samples: Int16Array; atMs: number }[] = [];
  const wakes: { startMs: number; endMs: number }[] = [];
  let atMs = 0;
  for (const clip of clips) {
    const clipAt = condition === '1 s after start' ? AFTER_START_MS - clip.wake.startMs : atMs + ROOM_BEFORE_MS;
    parts.push({ samples: clip.samples, atMs: clipAt });
    wakes.push({ startMs: clipAt + clip.wake.startMs, endMs: clipAt + clip.wake.endMs });
    atMs = clipAt + (clip.samples.length / RATE) * 1000;
  }
  return { input: overRoom(parts, atMs + TAIL_MS), wakes };
}

/** The stream time of a `wake` line: its `atMs`, else when it was logged after hark said it listens. */
function streamMs(line: LogLine, listening: LogLine | undefined): number {
  if (typeof line.atMs === 'number') return line.atMs;
  return listening ? loggedAt(line) - loggedAt(listening) : NaN;
}

export async function wakeRun(
  build: Build,
  percent: number | undefined,
  clips: WakePiece[],
  condition: WakeRun['condition'],
  service: { url: string; apiKey: string },
): Promise<WakeRun> {
  const { input, wakes } = layOut(clips, condition);
  const dir = mkdtempSync(join(tmpdir(), 'hark-board-wake-'));
  const cap = boardCap(`hark-bench-${process.pid}-${Math.round(Math.random() * 1e9)}`, percent);
  const inputMs = (input.length / RATE) * 1000;
  try {
    const hark = HarkProcess.start({
      build,
      cap,
      service,
      args: ['--input', writeWav(join(dir, 'input.wav'), input), '--output', join(dir, 'output.wav')],
      // The echo canceller is in the path, as on a board with a microphone and a speaker (audio.echoCancel
      // auto turns it on there; for an input file it would not).
      env: { HARK_AUDIO_ECHO_CANCEL: 'on' },
    });
    const ended = await Promise.race([hark.exited.then(() => true), wait(inputMs + 240_000).then(() => false)]);
    if (!ended) await hark.stop();
    const listening = hark.all('hark.listening')[0];
    const heard = hark.all('wake').map((line) => ({ line, atMs: streamMs(line, listening) }));
    const result: WakeRun = {
      condition,
      clips: clips.map((clip, i) => {
        const wake = wakes[i] as { startMs: number; endMs: number };
        const until = (wakes[i + 1]?.startMs ?? Infinity) - LOOK_BEFORE_MS;
        const hit = heard.find((h) => h.atMs >= wake.startMs - LOOK_BEFORE_MS && h.atMs < until);
        const latencyMs = hit && listening ? loggedAt(hit.line) - loggedAt(listening) - wake.endMs : undefined;
        return {
          name: clip.name,
          heard: hit !== undefined,
          atMsLogged: typeof hit?.line.atMs === 'number',
          ...(hit ? { afterWakeEndMs: hit.atMs - wake.endMs } : {}),
          ...(latencyMs === undefined ? {} : { latencyMs }),
        };
      }),
      behind: hark.lines.filter((l) => (BEHIND_EVENTS as readonly string[]).includes(l.event)).map(withoutReadAt),
      turns: hark.all('turn').length,
      peakMiB: hark.lastMemory?.peakMiB ?? NaN,
      cpuMs: cap.usedMs(),
      exitCode: await hark.exited,
    };
    if (!listening) result.failure = `hark never said it listens (exit ${String(result.exitCode)}): ${hark.tail()}`;
    else if (!ended) result.failure = `hark did not end within 240 s of its input's end`;
    return result;
  } finally {
    await cap.remove();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function withoutReadAt({ readAt: _, ...line }: LogLine): Record<string, unknown> {
  return line;
}

function wait(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
