import type { Logger } from '../system/logger.js';
import type { TurnOutcome } from './turn.js';

/** Milliseconds from the end of speech to each step, rounded; absent steps stay absent. */
export function turnLatencies(outcome: TurnOutcome): Record<string, number> {
  const { timings } = outcome;
  const since = (at: number | undefined): number | undefined =>
    at === undefined ? undefined : Math.round(at - timings.endOfSpeech);
  const latencies: Record<string, number | undefined> = {
    transcript: since(timings.transcript),
    firstToken: since(timings.firstToken),
    firstSentence: since(timings.firstSentence),
    firstAudioByte: since(timings.firstAudioByte),
    firstSamplePlayed: since(timings.firstPlayed),
  };
  return Object.fromEntries(Object.entries(latencies).filter(([, v]) => v !== undefined)) as Record<string, number>;
}

/** The one structured line per turn. */
export function logTurn(logger: Logger, outcome: TurnOutcome): void {
  const fields = {
    transcript: outcome.user.text,
    reply: outcome.reply,
    ...(outcome.interrupted || outcome.failed ? { heard: outcome.heard } : {}),
    interrupted: outcome.interrupted,
    ...(outcome.failed ? { error: outcome.failed } : {}),
    usage: outcome.usage ?? null,
    transcriptionRequests: outcome.user.parts,
    latencyMs: turnLatencies(outcome),
  };
  if (outcome.failed) logger.error('turn', fields);
  else logger.info('turn', fields);
}
