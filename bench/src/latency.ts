/**
 * Voice to voice in real time, measured from the truth: real recorded questions whose last
 * syllable is hand-labelled, played into hark's real voice loop (Silero, endpointing, speculation,
 * service clients, player) against the stand-in (in its own process) with fixed service delays.
 * Each figure starts at the labelled end of speech. hark's own overhead per stage is measured in
 * its process, from undici having the answer to undici writing the next request, with the time
 * spent waiting for a CPU told apart (latency-breakdown.ts); the stand-in's view of the same
 * hand-overs, which adds both processes waking up, is shown beside it. Run on a quiet machine and
 * with every core busy, side by side.
 * HARK_BENCH_SPECULATE_MS=120 (say) runs it with another endpoint.speculateAfterMs, to compare;
 * HARK_BENCH_ONLY=quiet (or busy) runs one half, to look into it.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Turn } from '../../dist/dialog/turn.js';
import { loadAverage, loadEveryCore } from './cpu-load.js';
import { arrange, labelled } from './labelled.js';
import { handOvers, standInView, type HandOvers } from './latency-breakdown.js';
import { probeHttp, type Split } from './probe.js';
import { runToEnd, samplesSource, startLoop } from './loop-harness.js';
import type { RemoteRequest } from './sim-client.js';
import { median, percentile, round, table, writeResult } from './stats.js';

const DELAYS = {
  transcriptionDelayMs: 100,
  ttftMs: 200,
  tokensPerSecond: 1000,
  ttsFirstByteMs: 150,
  ttsRealtimeFactor: 4,
};
const REPLY = 'Yes, of course.';
/** Complete questions and commands, each a whole thought. */
const CLIPS = ['speech-a', 'speech-b', 'speech-c', 'speech-e'];
/** The stand-in's delays on the way to the first sample: transcription, first token, the sentence's tokens 1 ms apart, first speech byte. */
const FIXED_MS = DELAYS.transcriptionDelayMs + DELAYS.ttftMs + REPLY.split(' ').length + DELAYS.ttsFirstByteMs;

const STEPS = {
  'end of speech detected (VAD)': 'speechEnd',
  'endpointed (turn over)': 'endpointed',
  transcript: 'transcript',
  'first token': 'firstToken',
  'first sentence': 'firstSentence',
  'first audio byte': 'firstAudioByte',
  'first sample played': 'firstPlayed',
} as const;
const STAGES = [
  'transcript in -> chat request written',
  "first sentence's last words in -> TTS request written",
  'first PCM in (or turn confirmed) -> written to the player',
] as const;

export interface Run {
  loadAverage: number;
  /** Per clip: ms from its labelled end of speech to each step (undefined: no turn answered it). */
  fromTrueEnd: (Record<string, number> | undefined)[];
  /** Per answered turn, in order (the first turn first): each hand-over inside hark. */
  handOvers: HandOvers[];
  /** The same, as the stand-in saw them. */
  standIn: { chat: number; speech: number; player: number }[];
  /** Per clip: the stand-in's own time on the critical path (undefined: no turn answered it). */
  serviceMs: (number | undefined)[];
  extra: { transcriptions: number; replies: number; perTurnTranscriptions: number[]; perTurnReplies: number[] };
  turns: number;
}

export async function benchLatency(turns = 10, loadedTurns = 8) {
  const only = process.env.HARK_BENCH_ONLY;
  const quiet = only === 'busy' ? undefined : await runInChild(turns, false);
  const loaded = only === 'quiet' ? undefined : await runInChild(loadedTurns, true);
  report(quiet ?? notRun(), loaded ?? notRun());
}

/** Each half in a fresh process: the busy half's first turn is then a first turn too, not the quiet half's eleventh. */
function runInChild(turns: number, loadCores: boolean): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = fork(
      fileURLToPath(new URL('./latency-run.js', import.meta.url)),
      [String(turns), loadCores ? 'busy' : 'quiet'],
      { execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' },
    );
    child.once('message', (m) => resolve(m as Run));
    child.once('error', reject);
    child.once('exit', (code) => code !== 0 && reject(new Error(`latency run exited with ${code}`)));
  });
}

function notRun(): Run {
  const extra = { transcriptions: NaN, replies: NaN, perTurnTranscriptions: [], perTurnReplies: [] };
  return { loadAverage: NaN, fromTrueEnd: [], handOvers: [], standIn: [], serviceMs: [], extra, turns: 0 };
}

export async function runTurns(turns: number, loadCores: boolean): Promise<Run> {
  const speculateAfterMs = Number(process.env.HARK_BENCH_SPECULATE_MS ?? NaN);
  const clips = await Promise.all(CLIPS.map(labelled));
  const order = Array.from({ length: turns }, (_, i) => clips[i % clips.length]!);
  const { samples, placed } = arrange(order, 500, 3500);
  const stopLoad = loadCores ? loadEveryCore() : undefined;
  const probe = probeHttp();
  try {
    const loop = await startLoop({
      timing: DELAYS,
      // Only fixed delays on the service's side: espeak-ng's rendering takes longer the busier the machine.
      voice: 'synthetic',
      source: samplesSource(samples),
      realtime: true,
      adjust: (config) => {
        if (Number.isFinite(speculateAfterMs)) config.endpoint.speculateAfterMs = speculateAfterMs;
      },
    });
    // More than one per turn: a guess the user spoke past takes the next one.
    for (let i = 0; i < turns * 2; i++) await loop.sim.transcript(`Question number ${i + 1}?`);
    for (let i = 0; i < turns * 2; i++) await loop.sim.reply({ text: REPLY });
    await runToEnd(loop);
    probe.stop();
    const requests = await loop.sim.requests();
    const average = loadAverage();
    await loop.close();
    const started = loop.inputStartedAt() ?? NaN;
    const trueEnds = placed.map((clip) => started + (clip.speech.at(-1)?.endMs ?? NaN));
    const answered = new Map<number, Turn>();
    for (const turn of loop.outcomes) {
      if (turn.timings.firstPlayed === undefined) continue;
      const nearest = closest(trueEnds, turn.timings.speechEnd);
      if (Math.abs((trueEnds[nearest] ?? NaN) - turn.timings.speechEnd) < 1500) answered.set(nearest, turn);
    }
    const fromTrueEnd = trueEnds.map((end, i) => {
      const turn = answered.get(i);
      if (!turn) return undefined;
      const steps: Record<string, number> = {};
      for (const [label, key] of Object.entries(STEPS)) {
        const at = turn.timings[key];
        if (at !== undefined) steps[label] = at - end;
      }
      return steps;
    });
    const completed = [...answered.values()];
    const serviceMs = trueEnds.map((_, i) => {
      const turn = answered.get(i);
      return turn && serviceTimeOnPath(turn, requests);
    });
    const inOrder = [...answered.entries()].sort(([a], [b]) => a - b).map(([, turn]) => turn);
    const of = (endpoint: string) => requests.filter((r) => r.endpoint === endpoint).length;
    return {
      loadAverage: average,
      fromTrueEnd,
      serviceMs,
      handOvers: inOrder.map((turn) => handOvers(turn, probe.moments)),
      standIn: inOrder.map((turn) => standInView(turn, requests)),
      extra: {
        transcriptions: of('transcription') - completed.length,
        replies: of('chat') - completed.length,
        perTurnTranscriptions: loop.outcomes.map((t) => t.extraRequests.transcriptions),
        perTurnReplies: loop.outcomes.map((t) => t.extraRequests.replies),
      },
      turns,
    };
  } finally {
    probe.stop();
    stopLoad?.();
  }
}

/**
 * The stand-in's own time on the way to the first sample, from its records: answering the
 * transcription that started the reply, and sending the first speech byte (rendering
 * included); the first sentence's nominal chat delays. The rest is hark's (and the kernel's).
 */
function serviceTimeOnPath({ timings: t }: Turn, requests: RemoteRequest[]): number {
  const of = (endpoint: string) => requests.filter((r) => r.endpoint === endpoint);
  const chat = firstAfter(of('chat'), (t.chatRequest ?? NaN) - 1);
  const transcription = of('transcription')
    .filter((r) => (r.firstBodyByteAtMs ?? Infinity) <= (chat?.receivedAtMs ?? NaN))
    .at(-1);
  const tts = firstAfter(of('speech'), (t.firstSentence ?? NaN) - 1);
  const answering = (r: RemoteRequest | undefined) => (r?.firstBodyByteAtMs ?? NaN) - (r?.receivedAtMs ?? NaN);
  return answering(transcription) + DELAYS.ttftMs + REPLY.split(' ').length + answering(tts);
}

function firstAfter(requests: RemoteRequest[], atMs: number): RemoteRequest | undefined {
  return requests.find((r) => r.receivedAtMs >= atMs);
}

function closest(values: number[], target: number): number {
  let best = 0;
  values.forEach((v, i) => {
    if (Math.abs(v - target) < Math.abs((values[best] ?? Infinity) - target)) best = i;
  });
  return best;
}

function report(quiet: Run, loaded: Run): void {
  const figures = (run: Run, label: string) => {
    const values = run.fromTrueEnd.flatMap((steps) => (steps?.[label] === undefined ? [] : [steps[label]]));
    return { median: median(values), p90: percentile(values, 90), first: run.fromTrueEnd[0]?.[label] ?? NaN };
  };
  const cells = (f: { median: number; p90: number; first: number }) => [
    round(f.median, 1),
    round(f.p90, 1),
    round(f.first, 1),
  ];
  const played = (run: Run) => figures(run, 'first sample played');
  const minusFixed = (run: Run) => {
    const f = played(run);
    return { median: f.median - FIXED_MS, p90: f.p90 - FIXED_MS, first: f.first - FIXED_MS };
  };
  const harkPart = (run: Run) => {
    const values = run.fromTrueEnd.flatMap((steps, i) => {
      const service = run.serviceMs[i];
      const playedAt = steps?.['first sample played'];
      return playedAt === undefined || service === undefined ? [] : [playedAt - service];
    });
    const first = (run.fromTrueEnd[0]?.['first sample played'] ?? NaN) - (run.serviceMs[0] ?? NaN);
    return { median: median(values), p90: percentile(values, 90), first };
  };
  const answered = (run: Run) => run.fromTrueEnd.filter(Boolean).length;
  console.log(
    `\nVoice to voice from the labelled end of speech (real recorded questions; stand-in delays: transcription ${DELAYS.transcriptionDelayMs} ms, first token ${DELAYS.ttftMs} ms, ${DELAYS.tokensPerSecond} tokens/s, first speech byte ${DELAYS.ttsFirstByteMs} ms, its synthetic voice; fixed delays on the path ${FIXED_MS} ms)`,
  );
  console.log(
    `quiet: ${answered(quiet)} of ${quiet.turns} questions answered, load average ${quiet.loadAverage}; every core busy: ${answered(loaded)} of ${loaded.turns}, load average ${loaded.loadAverage}`,
  );
  const q = minusFixed(quiet);
  const l = minusFixed(loaded);
  console.log(
    table([
      [
        'ms from the true end of speech to',
        'median',
        'p90',
        'first turn',
        'busy median',
        'busy p90',
        'busy first turn',
      ],
      ...Object.keys(STEPS).map((label) => [label, ...cells(figures(quiet, label)), ...cells(figures(loaded, label))]),
      ['first sample played minus fixed delays', ...cells(q), ...cells(l)],
      [
        'first sample played minus the service time measured on the path',
        ...cells(harkPart(quiet)),
        ...cells(harkPart(loaded)),
      ],
      [
        'target: median <= 250, p90 <= 400 (first turn included)',
        q.median <= 250 ? 'met' : 'MISSED',
        q.p90 <= 400 ? 'met' : 'MISSED',
        '',
        l.median <= 250 ? 'met' : 'MISSED',
        l.p90 <= 400 ? 'met' : 'MISSED',
        '',
      ],
    ]),
  );
  printStages(quiet, loaded);
  const waste = (run: Run) => [
    round(run.extra.transcriptions / run.turns, 2),
    median(run.extra.perTurnTranscriptions),
    round(run.extra.replies / run.turns, 2),
    median(run.extra.perTurnReplies),
  ];
  console.log(
    table([
      [
        'wasted requests per turn',
        'extra transcriptions (stand-in count / turns)',
        'median per turn (hark)',
        'extra reply streams (stand-in count / turns)',
        'median per turn (hark)',
      ],
      ['quiet', ...waste(quiet)],
      ['every core busy', ...waste(loaded)],
      ['target', '', '<= 1', '', '<= 0.5'],
    ]),
  );
  const path = writeResult('latency', {
    delays: DELAYS,
    fixedMs: FIXED_MS,
    origin: 'the labelled end of speech (last sound of the words) of each recorded question',
    quiet,
    busy: loaded,
    voiceToVoiceMinusFixedMs: { quiet: q, busy: l },
  });
  console.log(`wrote ${path}`);
}

/** hark's overhead per stage inside its process, the machine's share apart; then the stand-in's view. */
function printStages(quiet: Run, loaded: Run): void {
  const splits = (run: Run, i: number): (Split | undefined)[] =>
    run.handOvers.map((h) => (i === 0 ? h.chat : i === 1 ? h.speech : undefined));
  const wall = (run: Run, i: number): (number | undefined)[] =>
    i === 2 ? run.handOvers.map((h) => h.playerMs) : splits(run, i).map((s) => s?.wallMs);
  const figures = (values: (number | undefined)[]) => {
    const known = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
    return [round(median(known), 2), round(percentile(known, 90), 2), round(values[0] ?? NaN, 2)];
  };
  /** Medians of the machine's share (waiting for a CPU) and of hark's own (the rest). */
  const apart = (run: Run, i: number) => {
    const known = splits(run, i).filter((s): s is Split => s !== undefined && Number.isFinite(s.waitMs));
    if (!known.length) return '';
    return `${round(median(known.map((s) => s.waitMs)), 2)} / ${round(median(known.map((s) => s.ownMs)), 2)}`;
  };
  console.log(
    table([
      [
        "hark overhead per stage, in hark's process (ms)",
        'median',
        'p90',
        'first turn',
        'busy median',
        'busy p90',
        'busy first turn',
        "busy, waiting for a CPU / hark's own (medians)",
        'busy median <= 2 ms',
      ],
      ...STAGES.map((stage, i) => {
        const busy = figures(wall(loaded, i));
        return [stage, ...figures(wall(quiet, i)), ...busy, apart(loaded, i), (busy[0] ?? NaN) <= 2 ? 'met' : 'MISSED'];
      }),
    ]),
  );
  const seen = (run: Run, key: 'chat' | 'speech' | 'player') => figures(run.standIn.map((s) => s[key]));
  console.log(
    table([
      [
        "the same, as the stand-in saw them: its answer written -> the next request read (both processes' wake-ups included)",
        'median',
        'p90',
        'first turn',
        'busy median',
        'busy p90',
        'busy first turn',
      ],
      ['transcription answered -> chat request arrives', ...seen(quiet, 'chat'), ...seen(loaded, 'chat')],
      ['first sentence -> TTS request arrives', ...seen(quiet, 'speech'), ...seen(loaded, 'speech')],
      ['first PCM byte (or confirmed) -> written to the player', ...seen(quiet, 'player'), ...seen(loaded, 'player')],
    ]),
  );
}
