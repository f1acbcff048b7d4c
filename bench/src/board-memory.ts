/**
 * (e) Resident memory with the defaults: `hark run --web` (the status page loaded, as the daemon
 * serves it) of 50 turns in real time, each the wake word and a question; read from /proc after
 * the 50th turn, while hark still listens to the room as a daemon would (its clean-up between
 * turns done), before it is stopped: VmRSS then (steady) and VmHWM (its peak). Not `--fast`: the
 * wake-word detector then scores the whole file in one go, which alone took 440 MB.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CpuCap } from './cpu-cap.js';
import { HarkProcess, type Build, type Memory } from './board-hark.js';
import { overRoom, writeWav, type Piece } from './board-audio.js';
import { RemoteSim } from './sim-client.js';
import { RATE } from './wake-audio.js';

export interface MemoryRun {
  turns: number;
  memory?: Memory;
  /** The highest VmRSS seen over the last turns (sampled, SAMPLE_MS apart), a collection between turns or not. */
  highestMiB?: number;
  failure?: string;
}

/** After each question: hark's answer, then quiet. */
const GAP_MS = 3000;
/**
 * When memory is read after the last turn: past the clean-up a daemon does between turns (a
 * collection 1 s after a turn, the C heap trimmed at 1.5 s). The input goes on past it, room
 * noise: at its end the loop ends, with no clean-up, which a microphone never does.
 */
export const READ_AFTER_TURN_MS = 3000;
const ROOM_AFTER_READ_MS = 5000;
const SCRIPTED = 3;
/** The turns over which the highest resident memory is watched for, and how often it is read. */
export const LAST_TURNS = 10;
const SAMPLE_MS = 250;

export async function memoryRun(build: Build, questions: Piece[], turns: number): Promise<MemoryRun> {
  const parts: { samples: Int16Array; atMs: number }[] = [];
  let atMs = 1000;
  for (let i = 0; i < turns; i++) {
    const question = questions[i % questions.length] as Piece;
    parts.push({ samples: question.samples, atMs });
    atMs += (question.samples.length / RATE) * 1000 + GAP_MS;
  }
  const dir = mkdtempSync(join(tmpdir(), 'hark-board-memory-'));
  const sim = await RemoteSim.start({
    voice: 'synthetic',
    timing: { transcriptionDelayMs: 1, ttftMs: 1, tokensPerSecond: 5000, ttsFirstByteMs: 1, ttsRealtimeFactor: 1000 },
  });
  // hark may send what it heard before a question's end and take it back (extraRequests): each
  // turn is scripted a few times over, so that no turn gets the stand-in's long default reply,
  // which the next question would interrupt.
  for (let i = 0; i < SCRIPTED * turns; i++) await sim.transcript('What is the weather like?');
  for (let i = 0; i < SCRIPTED * turns; i++)
    await sim.reply({ text: 'It is sunny, with a light breeze from the west.' });
  const cap = CpuCap.create(`hark-bench-${process.pid}-${Math.round(Math.random() * 1e9)}`, undefined);
  const input = writeWav(join(dir, 'input.wav'), overRoom(parts, atMs + READ_AFTER_TURN_MS + ROOM_AFTER_READ_MS));
  const hark = HarkProcess.start({
    build,
    cap,
    service: sim,
    args: ['--input', input, '--output', join(dir, 'output.wav'), '--web'],
  });
  let highest = NaN;
  const sampling = setInterval(() => {
    if (hark.all('turn').length < turns - LAST_TURNS) return;
    const now = hark.memory()?.residentMiB ?? NaN;
    if (!(now <= highest)) highest = now;
  }, SAMPLE_MS);
  try {
    const last = await hark.next(() => hark.all('turn').length >= turns, atMs + 120_000);
    await new Promise((resolve) => setTimeout(resolve, READ_AFTER_TURN_MS));
    const result: MemoryRun = { turns: hark.all('turn').length };
    const memory = hark.memory();
    if (memory) result.memory = memory;
    if (Number.isFinite(highest)) result.highestMiB = highest;
    if (!last) result.failure = `${result.turns} of ${turns} turns: ${hark.tail()}`;
    return result;
  } finally {
    clearInterval(sampling);
    await hark.stop();
    await cap.remove();
    sim.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
