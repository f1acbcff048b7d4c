/**
 * hark on a small board (`npm run bench -- board`): the real `hark run` with the defaults, its
 * CPU capped by a cgroup at shares of one core of this machine (by single-core benchmarks a Pi 4
 * core is worth about 1/6 of it, a Pi 3 or Zero 2 W 1/12 to 1/16), the stand-in service outside
 * the cap. At each share: (a) the wake word heard, 1 s after hark starts and after 10 s of the
 * room (board-wake.ts); through a real sound server (board-room.ts): (b) voice to voice, (c)
 * barge-in, (d) CPU in a quiet room and in speech; (e) memory; (f) the listening thread alone,
 * Silero's answer times (board-listening.ts). The CPU split by stage
 * (board-stages.ts) and memory after 50 turns (board-memory.ts) are measured uncapped.
 *
 * HARK_BENCH_BASELINE=<checkout with dist built>: the same figures for that build beside this
 * one's (HARK_BENCH_BUILD: measure another checkout than this one). HARK_BENCH_QUICK=1: fewer
 * clips and turns, 7 % alone. HARK_BENCH_SHARES=100,7: these shares only (100: uncapped; the
 * targets measured uncapped, and voice to voice at 7 %, need it). HARK_BENCH_CORES=4: a board of
 * four such cores (cpu-cores.ts), hark's main thread and its listening thread each on one.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../dist/system/package-paths.js';
import { CpuCapUnavailable } from './cpu-cap.js';
import { boardCap } from './cpu-cores.js';
import type { Build } from './board-hark.js';
import { QUESTIONS, overRoom, recordedWakeWords, room, spokenWakeWords, wakeThen } from './board-audio.js';
import { memoryRun } from './board-memory.js';
import { runAll, type Job } from './board-pool.js';
import { report, type BuildResult } from './board-report.js';
import { listeningLag } from './board-listening.js';
import { roomRun, type RoomPlan } from './board-room.js';
import { stageSplitApart } from './board-stages.js';
import { wakeRun, type WakeRun } from './board-wake.js';
import { fixture } from './fixtures.js';
import { RemoteSim } from './sim-client.js';

const QUICK = process.env.HARK_BENCH_QUICK === '1';
/** % of one core; undefined: uncapped. */
const SHARES: (number | undefined)[] = (process.env.HARK_BENCH_SHARES ?? (QUICK ? '7' : '100,50,17,7,5'))
  .split(',')
  .map(Number)
  .map((share) => (share >= 100 ? undefined : share));
const PLAN = QUICK
  ? { spoken: 2, turns: 3, interruptions: ['speech-a', 'speech-d'], windowMs: 10_000, memoryTurns: 15, sounds: 2 }
  : {
      spoken: 10,
      turns: 6,
      // Each clip twice: about 3 talk-overs in 10 are heard late, capped or not (the canceller not
      // yet trusted), and the median of five read 120 to 955 ms in the runs of 1 and 2 December.
      interruptions: ['a', 'b', 'c', 'd', 'e', 'a', 'b', 'c', 'd', 'e'].map((clip) => `speech-${clip}`),
      windowMs: 20_000,
      memoryTurns: 50,
      sounds: 5,
    };
/** (f): each sound 3 s of the monologue, after this much of the room (the wake word keeps 2 s of it). */
const QUIET_BEFORE_SOUND_MS = 6000;
/**
 * hark processes side by side, each in its own group: their shares of a core (an uncapped one
 * reckoned at what it takes while it starts, or while it listens) within the budget, at most
 * `most` at once. Sound servers: at most `rooms`, each run's builds side by side.
 */
const POOL = { budget: 150, most: 10, rooms: 4 };
/** Capped room runs in this order: the heaviest beside the lightest. */
const ROOM_ORDER = [5, 50, 7, 17];

function builds(): Build[] {
  const all = [{ name: 'this build', root: process.env.HARK_BENCH_BUILD ?? PACKAGE_ROOT }];
  if (process.env.HARK_BENCH_BASELINE) all.push({ name: 'baseline', root: process.env.HARK_BENCH_BASELINE });
  for (const build of all) {
    if (!existsSync(join(build.root, 'dist', 'bin', 'hark.js')))
      throw new Error(`${build.root}: no dist/bin/hark.js (run npm run build there)`);
  }
  return all;
}

/** Fails at once, with the reason, where this machine cannot cap a process's CPU. */
async function checkCap(): Promise<string> {
  const cap = boardCap(`hark-bench-${process.pid}-check`, 7);
  const how = cap.describe();
  await cap.remove();
  return how;
}

export async function benchBoard(): Promise<void> {
  const started = performance.now();
  let how: string;
  try {
    how = await checkCap();
  } catch (error) {
    if (!(error instanceof CpuCapUnavailable)) throw error;
    console.error(`\nSmall-board bench: ${error.message}`);
    process.exitCode = 1;
    return;
  }
  const wrong = SHARES.filter((share) => share !== undefined && !(share >= 5));
  if (wrong.length)
    throw new Error(`HARK_BENCH_SHARES: ${wrong.join(', ')}: shares are 5 to 100 (% of one core; 100: uncapped)`);
  const all = builds();
  const wakeWords = [...(await recordedWakeWords()), ...(await spokenWakeWords(PLAN.spoken))];
  const questions = await Promise.all(QUESTIONS.map((clip) => wakeThen(clip)));
  const monologue = await fixture('monologue-71s.ogg');
  const speech = overRoom(
    [{ samples: monologue.subarray(16_000, 16_000 + (PLAN.windowMs / 1000 + 3) * 16_000), atMs: 0 }],
    PLAN.windowMs + 3000,
  );
  const plan: RoomPlan = {
    windowMs: PLAN.windowMs,
    questions: Array.from(
      { length: PLAN.turns },
      (_, i) => questions[i % questions.length] as (typeof questions)[number],
    ),
    interruptions: PLAN.interruptions,
    speech,
  };
  console.log(
    `\nSmall board: ${all.map((b) => `${b.name} (${b.root})`).join(' beside ')}; shares ${SHARES.map((s) => (s === undefined ? 'uncapped' : `${s} %`)).join(', ')}; ${how}`,
  );

  // (e) in real time beside (a): uncapped, it takes little while it listens.
  const memories = Promise.all(all.map((build) => memoryRun(build, questions, PLAN.memoryTurns)));
  const service = await RemoteSim.start({ voice: 'synthetic' });
  const jobs: Job<{ build: Build; share: number | undefined; run: WakeRun }>[] = [];
  const job = (build: Build, share: number | undefined, weight: number, run: () => Promise<WakeRun>) => ({
    weight: share ?? weight,
    run: async () => ({ build, share, run: await run() }),
  });
  // The long runs first, then one clip at a time, the builds alternating.
  for (const share of SHARES)
    for (const build of all)
      jobs.push(job(build, share, 15, () => wakeRun(build, share, wakeWords, 'after 10 s of room', service)));
  for (const clip of wakeWords)
    for (const share of SHARES)
      for (const build of all)
        jobs.push(job(build, share, 40, () => wakeRun(build, share, [clip], '1 s after start', service)));
  const wakeRuns = await runAll(jobs, POOL.budget, POOL.most);
  service.close();
  const seconds = () => Math.round((performance.now() - started) / 1000);
  console.log(`(a) the wake word: ${wakeRuns.length} runs, ${seconds()} s so far`);

  // The uncapped rooms first, with nothing else of the bench's beside them: voice to voice at a
  // share is held to theirs. Then the capped rooms among themselves, once the memory run (another
  // uncapped hark, taking what it wants of this machine's cores) is over.
  const roomJob = (build: Build, share: number | undefined) => ({
    weight: share ?? 60,
    run: async () => ({ build, share, room: await roomRun(build, share, plan) }),
  });
  const uncapped = SHARES.includes(undefined) ? all.map((build) => roomJob(build, undefined)) : [];
  const capped = [...ROOM_ORDER, ...SHARES.filter((s) => s !== undefined && !ROOM_ORDER.includes(s))]
    .filter((share) => SHARES.includes(share))
    .flatMap((share) => all.map((build) => roomJob(build, share)));
  const rooms = await runAll(uncapped, POOL.budget, POOL.rooms);
  const memoryResults = await memories;
  rooms.push(...(await runAll(capped, POOL.budget, POOL.rooms)));
  console.log(`(b-d) the room: ${rooms.length} runs, ${seconds()} s so far`);
  // (f) after the rooms, beside nothing of the bench's but each other.
  const sounds = overRoom(
    Array.from({ length: PLAN.sounds }, (_, i) => ({
      samples: monologue.subarray((2 + i * 8) * 16_000, (5 + i * 8) * 16_000),
      atMs: QUIET_BEFORE_SOUND_MS + i * (QUIET_BEFORE_SOUND_MS + 3000),
    })),
    PLAN.sounds * (QUIET_BEFORE_SOUND_MS + 3000) + 1000,
  );
  const listening = await runAll(
    SHARES.flatMap((share) =>
      all.map((build) => ({
        weight: share ?? 30,
        run: async () => ({ build, share, lag: await listeningLag(build, share, sounds) }),
      })),
    ),
    POOL.budget,
    POOL.most,
  );
  console.log(`(f) the listening thread: ${listening.length} runs, ${seconds()} s so far`);
  const results: BuildResult[] = all.map((build) => ({
    build,
    shares: SHARES.map((share) => ({
      share,
      wake: wakeRuns.filter((r) => r.build === build && r.share === share).map((r) => r.run),
      room: (rooms.find((r) => r.build === build && r.share === share) as (typeof rooms)[number]).room,
      listening: listening.find((r) => r.build === build && r.share === share)?.lag,
    })),
    memory: { turns: 0 },
  }));
  const silence = room(PLAN.windowMs);
  const window = speech.subarray(16_000, 16_000 + (PLAN.windowMs / 1000) * 16_000);
  // Other speech for the steady figure: the monologue from 40 s on (the window is from 1 s on, at most 20 s long).
  const before = overRoom([{ samples: monologue.subarray(40 * 16_000), atMs: 0 }], PLAN.windowMs);
  for (const result of results)
    result.stages = await stageSplitApart(result.build, { silence, speech: window, before });
  for (const [i, memory] of memoryResults.entries()) (results[i] as BuildResult).memory = memory;
  report(results, {
    quick: QUICK,
    windowMs: PLAN.windowMs,
    memoryTurns: PLAN.memoryTurns,
    cap: how,
    seconds: (performance.now() - started) / 1000,
  });
}
