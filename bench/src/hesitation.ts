/**
 * Hesitations inside one thought ("add eggs and … milk"): a real recording with two labelled
 * stretches of speech, its pause set from 0.6 to 1.2 s, played into hark's real voice loop. The
 * stand-in hears the first stretch as an unfinished clause and the whole as a complete one. A
 * thought is kept when hark answers it once, after its second stretch, and nothing it guessed at
 * the pause was played.
 */
import type { HarkConfig } from '../../dist/config/schema.js';
import type { Turn } from '../../dist/dialog/turn.js';
import { arrange, labelled, withPause, type Labelled } from './labelled.js';
import { runToEnd, samplesSource, startLoop } from './loop-harness.js';
import { round, table, writeResult } from './stats.js';

const UNFINISHED = 'Add eggs and';
const WHOLE = 'Add eggs and milk to the shopping list.';

export async function benchHesitation(trials = 10) {
  const clip = await labelled('speech-d');
  const pauses = Array.from({ length: trials }, (_, i) => Math.round(600 + (600 * i) / Math.max(1, trials - 1)));
  const byMeaning = await runThoughts(clip, pauses, () => undefined);
  // The same thoughts with the silence timer alone: what the figures would be without meaning.
  const bySilence = await runThoughts(clip, pauses, (config) => (config.endpoint.speculate = false));
  console.log(
    `\nHesitations inside one thought (speech-d, its labelled pause set to ${pauses[0]}–${pauses.at(-1)} ms; ${trials} thoughts)`,
  );
  const kept = (r: Outcome) => `${r.kept} of ${trials} (${round((100 * r.kept) / trials, 0)} %)`;
  const splits = (r: Outcome) => r.splitAt.join(' ') || 'none';
  console.log(
    table([
      ['figure', 'by meaning (default)', 'by silence alone', 'target'],
      ['kept as one turn', kept(byMeaning), kept(bySilence), '>= 90 %'],
      ['split at the pause (pauses ms)', splits(byMeaning), splits(bySilence), ''],
      ['held replies dropped when the user went on', byMeaning.retracted, bySilence.retracted, ''],
      ['of which audio reached the player', byMeaning.leaked, bySilence.leaked, '0'],
      [
        'extra transcriptions per thought (stand-in count)',
        round(byMeaning.extraTranscriptions, 2),
        round(bySilence.extraTranscriptions, 2),
        '<= 1',
      ],
      [
        'extra reply streams per thought (stand-in count)',
        round(byMeaning.extraReplies, 2),
        round(bySilence.extraReplies, 2),
        '<= 0.5',
      ],
    ]),
  );
  const path = writeResult('hesitation', { pauses, byMeaning, bySilence });
  console.log(`wrote ${path}`);
}

interface Outcome {
  kept: number;
  splitAt: number[];
  retracted: number;
  leaked: number;
  extraTranscriptions: number;
  extraReplies: number;
}

async function runThoughts(clip: Labelled, pauses: number[], adjust: (config: HarkConfig) => void): Promise<Outcome> {
  const trials = pauses.length;
  const { samples, placed } = arrange(
    pauses.map((pauseMs) => withPause(clip, pauseMs)),
    500,
    3500,
  );
  const loop = await startLoop({
    timing: {
      transcriptionDelayMs: 100,
      ttftMs: 200,
      tokensPerSecond: 1000,
      ttsFirstByteMs: 150,
      ttsRealtimeFactor: 4,
    },
    source: samplesSource(samples),
    realtime: true,
    adjust,
  });
  for (let i = 0; i < trials; i++) await loop.sim.transcript({ texts: [UNFINISHED, WHOLE] });
  for (let i = 0; i < trials * 3; i++) await loop.sim.reply({ text: 'Added.' });
  await runToEnd(loop);
  const requests = await loop.sim.requests();
  await loop.close();
  const started = loop.inputStartedAt() ?? NaN;
  const heardTurns = loop.outcomes.filter((t) => t.interrupted !== 'retracted');
  const results = placed.map((thought, i) => {
    const [first, second] = thought.speech;
    const firstEnd = started + (first?.endMs ?? NaN);
    const secondStart = started + (second?.startMs ?? NaN);
    const secondEnd = started + (second?.endMs ?? NaN);
    const within = (t: Turn, from: number, to: number) => t.timings.speechEnd >= from && t.timings.speechEnd < to;
    const early = heardTurns.filter((t) => within(t, firstEnd - 500, secondStart));
    const whole = heardTurns.filter((t) => within(t, secondStart, secondEnd + 1500));
    return { pauseMs: pauses[i] ?? NaN, kept: early.length === 0 && whole.length === 1, split: early.length > 0 };
  });
  const retracted = loop.outcomes.filter((t) => t.interrupted === 'retracted');
  const of = (endpoint: string) => requests.filter((r) => r.endpoint === endpoint).length;
  return {
    kept: results.filter((r) => r.kept).length,
    splitAt: results.filter((r) => r.split).map((r) => r.pauseMs),
    retracted: retracted.length,
    leaked: retracted.filter((t) => t.audioMs.played > 0).length,
    extraTranscriptions: (of('transcription') - heardTurns.length) / trials,
    extraReplies: (of('chat') - heardTurns.length) / trials,
  };
}
