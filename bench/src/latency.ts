/**
 * The voice loop in real time against the stand-in with fixed service delays: hark's own
 * overhead at each stage (measured against the moments the stand-in saw requests arrive and
 * sent its first audio), and voice-to-voice latency minus the fixed delays.
 */
import { concatSamples, silence, speechClip } from './fixtures.js';
import { runToEnd, samplesSource, startLoop } from './loop-harness.js';
import { median, percentile, round, table, writeResult } from './stats.js';

const DELAYS = {
  transcriptionDelayMs: 100,
  ttftMs: 200,
  tokensPerSecond: 1000,
  ttsFirstByteMs: 150,
  ttsRealtimeFactor: 4,
};
const REPLY = 'Yes, of course.';

export async function benchLatency(turns = 10) {
  const { samples: clip } = await speechClip();
  const input = concatSamples([silence(500), ...Array.from({ length: turns }, () => [clip, silence(3600)]).flat()]);
  const loop = await startLoop({ timing: DELAYS, source: samplesSource(input), realtime: true });
  for (let i = 0; i < turns; i++) {
    await loop.sim.transcript(`Question number ${i + 1}?`);
    await loop.sim.reply({ text: REPLY });
  }
  await runToEnd(loop);
  const requests = await loop.sim.requests();
  await loop.close();
  const of = (endpoint: string) => requests.filter((r) => r.endpoint === endpoint);
  const [transcriptions, chats, speech] = [of('transcription'), of('chat'), of('speech')];
  const stages: Record<string, number[]> = {
    'end of speech -> transcription request sent': [],
    'transcript -> chat request sent': [],
    'sentence complete -> TTS request sent': [],
    'first PCM delta -> written to the player': [],
  };
  const voiceToVoice: number[] = [];
  // Tokens before the reply's only sentence is complete, at 1 ms apart.
  const tokenMs = REPLY.split(' ').length;
  const fixedMs = DELAYS.transcriptionDelayMs + DELAYS.ttftMs + tokenMs + DELAYS.ttsFirstByteMs;
  loop.outcomes.forEach((outcome, i) => {
    const t = outcome.timings;
    const push = (stage: string, value: number | undefined): void => {
      if (value !== undefined && Number.isFinite(value)) stages[stage]?.push(value);
    };
    push('end of speech -> transcription request sent', (transcriptions[i]?.receivedAtMs ?? NaN) - t.endpointed);
    push('transcript -> chat request sent', (chats[i]?.receivedAtMs ?? NaN) - t.transcript);
    push('sentence complete -> TTS request sent', (speech[i]?.receivedAtMs ?? NaN) - (t.firstSentence ?? NaN));
    push('first PCM delta -> written to the player', (t.firstWrite ?? NaN) - (speech[i]?.firstBodyByteAtMs ?? NaN));
    if (t.firstPlayed !== undefined) voiceToVoice.push(t.firstPlayed - t.endpointed);
  });
  const rows = Object.entries(stages).map(([stage, values]) => [
    stage,
    round(median(values), 3),
    round(percentile(values, 90), 3),
    values.length,
    median(values) <= 2 ? 'met' : 'MISSED',
  ]);
  const v2v = median(voiceToVoice);
  console.log(
    `\nVoice loop in real time (${turns} turns; stand-in delays: transcription ${DELAYS.transcriptionDelayMs} ms, first token ${DELAYS.ttftMs} ms, ${DELAYS.tokensPerSecond} tokens/s, first speech byte ${DELAYS.ttsFirstByteMs} ms)`,
  );
  console.log(table([['hark overhead per stage', 'median ms', 'p90 ms', 'turns', 'target <= 2 ms'], ...rows]));
  console.log(
    table([
      ['voice to voice (end of speech -> first sample played)', 'median ms', 'minus fixed service delays'],
      ['', round(v2v, 1), round(v2v - fixedMs, 1)],
    ]),
  );
  const path = writeResult('latency', {
    turns,
    delays: DELAYS,
    fixedMs,
    stages: Object.fromEntries(
      Object.entries(stages).map(([k, v]) => [k, { medianMs: round(median(v), 3), samples: v }]),
    ),
    voiceToVoice: { medianMs: round(v2v, 1), minusDelaysMs: round(v2v - fixedMs, 1), samples: voiceToVoice },
    completedTurns: loop.outcomes.filter((o) => !o.interrupted && !o.failed).length,
  });
  console.log(`wrote ${path}`);
}
