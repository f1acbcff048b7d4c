/** The small-board bench's table (each figure beside its target, the baseline beside it) and JSON. */
import type { Build } from './board-hark.js';
import { LAST_TURNS, READ_AFTER_TURN_MS, type MemoryRun } from './board-memory.js';
import { LATE_MS, type ListeningLag } from './board-listening.js';
import { PAUSED_BEFORE, type RoomRun } from './board-room.js';
import { stageRows } from './board-stage-rows.js';
import type { StageSplit } from './board-stages.js';
import type { WakeRun } from './board-wake.js';
import { CORES } from './cpu-cores.js';
import { median, met, percentile, round, table, writeResult } from './stats.js';

export interface ShareResult {
  /** % of one core; undefined: uncapped. */
  share: number | undefined;
  wake: WakeRun[];
  room: RoomRun;
  listening: ListeningLag | undefined;
}

export interface BuildResult {
  build: Build;
  shares: ShareResult[];
  stages?: StageSplit;
  memory: MemoryRun;
}

const TARGET_SHARE = 7;
const LAST_SHARE = 5;
const TARGETS = {
  wakeRate: 0.95,
  voiceToVoiceOverUncappedMs: 150,
  bargeInMedianMs: 200,
  silencePercent: 1,
  speechPercent: 3,
  /** The figures are MB (10^6 bytes); the bench reads MiB. */
  steadyMB: 100,
  peakMB: 120,
};

/** A memory target in MB, beside a figure read in MiB. */
const withinMB = (mib: number, mb: number): string => {
  const limit = (mb * 1e6) / 2 ** 20;
  return `<= ${mb} MB (${round(limit, 1)} MiB) ${met(mib <= limit)}`;
};

const ms = (v: number): string => (Number.isFinite(v) ? `${Math.round(v)}` : '-');
const signed = (v: number, unit: string): string =>
  Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${round(v, 1)}${unit}` : '-';

function spread(values: number[]) {
  return {
    median: values.length ? median(values) : NaN,
    p90: values.length ? percentile(values, 90) : NaN,
    n: values.length,
  };
}

/** What one build did at one share. */
function summarise(s: ShareResult) {
  const clips = (condition: WakeRun['condition']) =>
    s.wake.filter((r) => r.condition === condition).flatMap((r) => r.clips);
  const rate = (list: ReturnType<typeof clips>) => ({
    heard: list.filter((c) => c.heard).length,
    of: list.length,
    latency: spread(list.flatMap((c) => (c.latencyMs === undefined ? [] : [c.latencyMs]))),
  });
  const lines = [...s.wake.flatMap((r) => r.behind), ...s.room.behind];
  const count = (event: string) => lines.filter((l) => l.event === event);
  const numbers = (list: Record<string, unknown>[], field: string) =>
    list.map((l) => l[field]).filter((v): v is number => typeof v === 'number');
  const silentlyMissed = s.wake
    .filter((r) => !r.behind.some((l) => l.event === 'listen.behind' || l.event === 'listen.dropped'))
    .flatMap((r) => r.clips.filter((c) => !c.heard)).length;
  const turns = s.room.turns;
  return {
    wake1: rate(clips('1 s after start')),
    wake10: rate(clips('after 10 s of room')),
    voiceToVoice: {
      ...spread(turns.flatMap((t) => (t.voiceToVoiceMs === undefined ? [] : [t.voiceToVoiceMs]))),
      first: turns[0]?.voiceToVoiceMs ?? NaN,
    },
    answered: { answered: turns.filter((t) => t.answered).length, of: turns.length },
    bargeIn: {
      ...spread(s.room.bargeIns.flatMap((b) => (b.pausedMs === undefined || b.note ? [] : [b.pausedMs]))),
      early: s.room.bargeIns.filter((b) => b.note === PAUSED_BEFORE).length,
      selfPauses: s.room.bargeIns.reduce((n, b) => n + (b.before?.pauses ?? 0), 0),
      selfPausesInMs: s.room.bargeIns.reduce((n, b) => n + (b.before?.ms ?? 0), 0),
      of: s.room.bargeIns.length,
    },
    cpu: s.room.cpu,
    listening: s.listening,
    peakMiB: Math.max(...s.wake.map((r) => r.peakMiB).filter(Number.isFinite), s.room.memory?.peakMiB ?? NaN),
    behind: {
      behind: count('listen.behind').length,
      worstLagMs: Math.max(0, ...numbers(count('listen.behind'), 'lagMs')),
      pace: count('listen.pace').length,
      dropped: count('listen.dropped').length,
      droppedMs: numbers(count('listen.dropped'), 'droppedMs').reduce((a, b) => a + b, 0),
    },
    silentlyMissed,
    failures: [...s.wake.flatMap((r) => (r.failure ? [r.failure] : [])), ...(s.room.failure ? [s.room.failure] : [])],
  };
}

type Summary = ReturnType<typeof summarise>;

const shareName = (share: number | undefined): string =>
  share === undefined ? 'uncapped' : CORES > 1 ? `${CORES} cores of ${share} %` : `${share} % of a core`;

export function report(
  results: BuildResult[],
  about: { quick: boolean; windowMs: number; memoryTurns: number; cap: string; seconds: number },
): void {
  const [mine, base] = results as [BuildResult, BuildResult | undefined];
  const rows: string[][] = [['figure', 'target', mine.build.name, ...(base ? [base.build.name, 'change'] : [])]];
  const row =
    (label: string, target: string, cell: (s: Summary) => string, change?: (a: Summary, b: Summary) => string) =>
    (a: Summary, b: Summary | undefined) =>
      rows.push([label, target, cell(a), ...(b ? [cell(b), change ? change(a, b) : ''] : [])]);
  const uncapped = mine.shares.find((s) => s.share === undefined);
  const uncappedVoice = uncapped ? summarise(uncapped).voiceToVoice.median : NaN;
  for (const [i, share] of mine.shares.entries()) {
    const a = summarise(share);
    const b = base ? summarise(base.shares[i] as ShareResult) : undefined;
    const at7 = share.share === TARGET_SHARE;
    const at5 = share.share === LAST_SHARE;
    rows.push([`[${shareName(share.share)}]`, '', '', ...(base ? ['', '', ''] : [])]);
    for (const [key, label] of [
      ['wake1', 'wake word heard, said 1 s after start'],
      ['wake10', 'wake word heard, after 10 s of room'],
    ] as const) {
      const rate = (s: Summary) => s[key].heard / s[key].of;
      row(
        label,
        at7 ? `>= 95 % ${met(rate(a) >= TARGETS.wakeRate)}` : 'info',
        (s) => `${s[key].heard}/${s[key].of} (${round(rate(s) * 100, 1)} %)`,
        (x, y) => signed((rate(x) - rate(y)) * 100, ' points'),
      )(a, b);
      row(
        `  wake line, ms after the wake word's end`,
        'info',
        (s) => `median ${ms(s[key].latency.median)}, p90 ${ms(s[key].latency.p90)}`,
        (x, y) => signed(x[key].latency.median - y[key].latency.median, ' ms'),
      )(a, b);
    }
    row(
      'voice to voice, ms (first sample played after the end of speech)',
      !at7
        ? 'info'
        : Number.isFinite(uncappedVoice)
          ? `median <= ${ms(uncappedVoice + TARGETS.voiceToVoiceOverUncappedMs)} (uncapped + 150) ${met(a.voiceToVoice.median <= uncappedVoice + TARGETS.voiceToVoiceOverUncappedMs)}`
          : 'uncapped + 150 (no uncapped run)',
      (s) =>
        `median ${ms(s.voiceToVoice.median)}, p90 ${ms(s.voiceToVoice.p90)}, first ${ms(s.voiceToVoice.first)} (${s.voiceToVoice.n} measured)`,
      (x, y) => signed(x.voiceToVoice.median - y.voiceToVoice.median, ' ms'),
    )(a, b);
    row(
      'questions answered',
      at5 ? `hark still answers ${met(a.answered.answered > 0)}` : 'info',
      (s) => `${s.answered.answered}/${s.answered.of}`,
    )(a, b);
    row(
      'barge-in, ms from the onset to the pause',
      at7 ? `median <= 200 ${met(a.bargeIn.median <= TARGETS.bargeInMedianMs)}` : 'info',
      (s) =>
        `median ${ms(s.bargeIn.median)}, p90 ${ms(s.bargeIn.p90)} (paused ${s.bargeIn.n}/${s.bargeIn.of}; already paused ${s.bargeIn.early})`,
      (x, y) => signed(x.bargeIn.median - y.bargeIn.median, ' ms'),
    )(a, b);
    row(
      '  pauses in its reply before the user spoke',
      'info',
      (s) => `${s.bargeIn.selfPauses} in ${round(s.bargeIn.selfPausesInMs / 1000, 1)} s`,
    )(a, b);
    row(
      "(f) Silero's answer, ms after the frame (the listening thread alone)",
      'info',
      (s) =>
        s.listening?.failure ??
        (s.listening
          ? `p50 ${ms(s.listening.p50Ms)}, p99 ${ms(s.listening.p99Ms)}, max ${ms(s.listening.maxMs)}; over ${LATE_MS}: ${s.listening.late}/${s.listening.frames}`
          : '-'),
      (x, y) => signed((x.listening?.p99Ms ?? NaN) - (y.listening?.p99Ms ?? NaN), ' ms (p99)'),
    )(a, b);
    // All of hark and its recorder: the targets are the listening path's, in the stage rows below.
    for (const kind of ['silence', 'speech'] as const) {
      const percent = (s: Summary) => s.cpu?.[kind].percent ?? NaN;
      row(
        `CPU listening in ${kind === 'silence' ? 'a quiet room' : 'speech'}, % of a core (cgroup)`,
        'info',
        (s) => `${round(percent(s), 2)} %`,
        (x, y) => `x${round(percent(x) / percent(y), 2)}`,
      )(a, b);
    }
    row(
      'peak resident memory (VmHWM), MiB',
      'info',
      (s) => `${round(s.peakMiB, 1)}`,
      (x, y) => signed(x.peakMiB - y.peakMiB, ' MiB'),
    )(a, b);
    row(
      'listen.behind / pace / dropped lines',
      'info',
      (s) =>
        `behind ${s.behind.behind} (worst lag ${ms(s.behind.worstLagMs)} ms), pace ${s.behind.pace}, dropped ${s.behind.dropped} (${ms(s.behind.droppedMs)} ms)`,
    )(a, b);
    row(
      'wake words missed with no behind/dropped line',
      at5 ? `0 ${met(a.silentlyMissed === 0)}` : 'info',
      (s) => `${s.silentlyMissed}`,
    )(a, b);
    if (a.failures.length || b?.failures.length) row('runs that failed', '', (s) => `${s.failures.length}`)(a, b);
  }
  stageRows(rows, mine, base, { silence: TARGETS.silencePercent, steady: TARGETS.speechPercent });
  memoryRows(rows, mine, base, about.memoryTurns);
  console.log(table(rows));
  console.log(
    [
      `(a) from the labelled start of each wake word to a \`wake\` line at it (its stream time atMs, or for a build that logs none, when it was logged after hark.listening); the wake line's delay from hark.listening's log time to its own, less the labelled end of the wake word;`,
      `(b) from the labelled end of the question (found in the mix by correlation) to the first 10 ms of hark's voice in the mix voiced for half of the next 0.5 s; (c) from the labelled onset of the speech played over hark's reply (its voice fed back into the microphone at -8 dB: as loud as the user) to the start of the first 0.2 s without hark's voice, within 8 s (none: not paused; hark silent in the 0.3 s before the onset: already paused), each talk-over 1.5 s after hark's voice is first steady;`,
      `(d) the cgroup's CPU (hark and its arecord) over ${about.windowMs / 1000} s of the room (pink noise, -60 dBFS) and of the monologue fixture (no wake word), from 5 s after the models loaded; the stages: the build's own classes in a process of their own, on a worker thread with the build's V8 settings and the units' environment, over the same audio (process CPU, all threads), uncapped, the speech twice: as the first speech a fresh hark hears, and steady (after 20 s of other speech from the same recording); the three: the listening path, held to the targets; the rest = the uncapped cgroup's figure less the three (hark's own loop, page, logging and the recorder arecord, from /proc in 10 ms ticks);`,
      `(e) VmHWM of every hark at the share (peak), and VmRSS/VmHWM of a --web run (in real time) ${READ_AFTER_TURN_MS / 1000} s after its ${about.memoryTurns}th turn, still listening; (f) the build's listening thread (Silero and the live wake word, the default configuration) in a process of its own at the share, fed 32 ms frames at real time (the room, with 3 s of the monologue after every 6 s of it), each frame to both: from a frame sent to its speech probability back. ${about.cap}. ${about.quick ? 'Quick run (HARK_BENCH_QUICK=1). ' : ''}Took ${round(about.seconds / 60, 1)} min.`,
    ].join('\n'),
  );
  for (const result of results) {
    for (const share of result.shares) {
      const lines = [...share.wake.flatMap((r) => r.behind), ...share.room.behind];
      if (lines.length) console.log(`${result.build.name}, ${shareName(share.share)}: ${linesSeen(lines)}`);
    }
  }
  const path = writeResult('board', { targets: TARGETS, windowMs: about.windowMs, cap: about.cap, results });
  console.log(`wrote ${path}`);
}

function memoryRows(rows: string[][], mine: BuildResult, base: BuildResult | undefined, turns: number): void {
  rows.push([`[memory, --web run of ${turns} turns in real time, uncapped]`, '', '', ...(base ? ['', '', ''] : [])]);
  const cell = (r: BuildResult, field: 'residentMiB' | 'peakMiB') =>
    `${round(r.memory.memory?.[field] ?? NaN, 1)} MiB (${r.memory.turns} turns)`;
  const change = (field: 'residentMiB' | 'peakMiB') =>
    base
      ? [cell(base, field), signed((mine.memory.memory?.[field] ?? NaN) - (base.memory.memory?.[field] ?? NaN), ' MiB')]
      : [];
  const steady = mine.memory.memory?.residentMiB ?? NaN;
  const peak = mine.memory.memory?.peakMiB ?? NaN;
  rows.push([
    `  steady (VmRSS after the ${turns}th turn)`,
    withinMB(steady, TARGETS.steadyMB),
    cell(mine, 'residentMiB'),
    ...change('residentMiB'),
  ]);
  const highest = (r: BuildResult) => `${round(r.memory.highestMiB ?? NaN, 1)} MiB`;
  rows.push([
    `  highest VmRSS over the last ${LAST_TURNS} turns`,
    '',
    highest(mine),
    ...(base ? [highest(base), signed((mine.memory.highestMiB ?? NaN) - (base.memory.highestMiB ?? NaN), ' MiB')] : []),
  ]);
  rows.push(['  peak (VmHWM)', withinMB(peak, TARGETS.peakMB), cell(mine, 'peakMiB'), ...change('peakMiB')]);
}

/** Every listen.behind / pace / dropped / caught-up line, told in short: how many, with what. */
function linesSeen(lines: Record<string, unknown>[]): string {
  const told: string[] = [];
  for (const event of ['listen.behind', 'listen.pace', 'listen.dropped', 'listen.caught-up']) {
    const these = lines.filter((l) => l.event === event);
    if (!these.length) continue;
    const by = (field: string) => {
      const counts = new Map<string, number>();
      for (const l of these) counts.set(String(l[field]), (counts.get(String(l[field])) ?? 0) + 1);
      return [...counts].map(([value, n]) => `${value} x${n}`).join(', ');
    };
    const range = (field: string) => {
      const values = these.map((l) => l[field]).filter((v): v is number => typeof v === 'number');
      return values.length ? `${field} ${Math.min(...values)}..${Math.max(...values)}` : '';
    };
    if (event === 'listen.behind') told.push(`${event} ${these.length} (${by('stage')}; ${range('lagMs')})`);
    else if (event === 'listen.pace') told.push(`${event} ${these.length} (${by('wakeWord')}; ${range('backlogMs')})`);
    else if (event === 'listen.dropped') told.push(`${event} ${these.length} (${range('droppedMs')})`);
    else told.push(`${event} ${these.length} (${range('worstLagMs')})`);
  }
  return told.join('; ');
}
