import { EMPTY, catchError, concat, defer, finalize, ignoreElements, tap, type Observable } from 'rxjs';
import type { Earcons } from '../audio/earcons.js';
import type { Player } from '../audio/player.js';
import type { Turn } from '../dialog/reply-request.js';
import type { TokenUsage } from '../service/reply.js';
import { heardText, type PlacedSentence } from '../speak/heard.js';
import { playSentences, type Placement } from './play-sentences.js';
import type { ReplyModel, Synthesizer } from './ports.js';
import { speakableText, splitSentences, type Sentence } from './speak-text.js';
import { prefetchAhead } from './synthesize-ahead.js';
import type { UserTurn } from './user-turns.js';

export type AssistantState = 'listening' | 'thinking' | 'speaking';

/** Monotonic times (ms) of each step of a turn. */
export interface TurnTimings {
  endOfSpeech: number;
  transcriptionRequest: number;
  transcript: number;
  chatRequest?: number;
  firstToken?: number;
  firstSentence?: number;
  ttsRequest?: number;
  firstAudioByte?: number;
  firstWrite?: number;
  firstPlayed?: number;
}

export interface TurnOutcome {
  user: UserTurn;
  /** Everything the reply would have said. */
  reply: string;
  /** What the user actually heard of it. */
  heard: string;
  /** Cut short by the user talking over it. */
  interrupted: boolean;
  failed: Error | undefined;
  usage: TokenUsage | undefined;
  timings: TurnTimings;
  sentences: number;
  /** When playback was stopped, for a turn cut short (monotonic ms). */
  stoppedAt: number | undefined;
  /** Audio of this turn handed to the player, and how much of it was played. */
  audioMs: { written: number; played: number };
}

export interface TurnDeps {
  replyModel: ReplyModel;
  synthesizer: Synthesizer;
  player: Player;
  earcons: Earcons;
  /** Sentences synthesized ahead of the one playing. */
  lookahead: number;
  /** Audio left in the queue when the next sentence is taken up. */
  lowWaterMs: number;
  onState: (state: AssistantState) => void;
  onOutcome: (outcome: TurnOutcome) => void;
  now?: () => number;
}

/** Typical speech rate, for guessing the length of a sentence whose audio is still arriving. */
const DEFAULT_MS_PER_CHAR = 65;

/**
 * One reply, from the chat request to the last sample played. Unsubscribing is barge-in:
 * every request of the turn is aborted, buffered audio is dropped, and the outcome records
 * only what was heard. Errors stay inside the turn: an error earcon, and the outcome says why.
 */
export function runTurn(user: UserTurn, history: Turn[], deps: TurnDeps): Observable<never> {
  const now = deps.now ?? (() => performance.now());
  return defer(() => {
    const timings: TurnTimings = {
      endOfSpeech: user.endOfSpeechAt,
      transcriptionRequest: user.transcriptionRequestAt,
      transcript: user.transcriptAt,
    };
    const placements = new Map<number, Placement>();
    const sentences: Sentence[] = [];
    let usage: TokenUsage | undefined;
    let ended: 'completed' | 'failed' | undefined;
    let failure: Error | undefined;

    deps.onState('thinking');
    deps.earcons.play('thinking');
    timings.chatRequest = now();
    const reply = deps.replyModel.reply(history).pipe(
      tap((event) => {
        if (event.type === 'text') timings.firstToken ??= now();
        if (event.type === 'done') usage = event.usage;
      }),
    );
    const synthesize = (sentence: Sentence): Observable<Buffer> =>
      defer(() => {
        if (sentence.index === 0) timings.ttsRequest = now();
        return deps.synthesizer.synthesize(sentence.text).pipe(tap(() => (timings.firstAudioByte ??= now())));
      });
    const onPlacement = (placement: Placement): void => {
      if (timings.firstWrite === undefined) {
        timings.firstWrite = now();
        const aheadMs = ((placement.startSample - deps.player.playedSamples()) / deps.player.sampleRateHz) * 1000;
        timings.firstPlayed = timings.firstWrite + Math.max(0, aheadMs);
        deps.onState('speaking');
      }
      placements.set(placement.sentence.index, placement);
    };

    const spoken = reply.pipe(
      speakableText(),
      splitSentences(),
      tap((sentence) => {
        timings.firstSentence ??= now();
        sentences.push(sentence);
      }),
      prefetchAhead(synthesize, deps.lookahead),
      playSentences(deps.player, deps.lowWaterMs),
      tap(onPlacement),
      ignoreElements(),
    );
    return concat(spoken, deps.player.queuedBelow(0).pipe(ignoreElements())).pipe(
      tap({
        complete: () => (ended = 'completed'),
        error: (error: unknown) => {
          ended = 'failed';
          failure = error instanceof Error ? error : new Error(String(error));
        },
      }),
      catchError(() => EMPTY),
      finalize(() => {
        const playedSample = deps.player.playedSamples();
        const timeline = placed(placements, deps.player.sampleRateHz);
        const heard = heardText(timeline, playedSample);
        if (ended !== 'completed') deps.player.stop();
        const stoppedAt = ended === 'completed' ? undefined : now();
        if (ended === 'failed') deps.earcons.play('error');
        deps.onState('listening');
        deps.onOutcome({
          user,
          reply: sentences.map((s) => s.text).join(' '),
          heard: heard.text,
          interrupted: ended === undefined,
          failed: failure,
          usage,
          timings,
          sentences: sentences.length,
          stoppedAt,
          audioMs: turnAudioMs([...placements.values()], playedSample, deps.player.sampleRateHz),
        });
      }),
    );
  });
}

function turnAudioMs(placements: Placement[], playedSample: number, sampleRateHz: number): TurnOutcome['audioMs'] {
  const toMs = (samples: number): number => Math.round((samples / sampleRateHz) * 1000);
  let written = 0;
  let played = 0;
  for (const p of placements) {
    written += p.endSample - p.startSample;
    played += Math.max(0, Math.min(playedSample, p.endSample) - p.startSample);
  }
  return { written: toMs(written), played: toMs(played) };
}

/** Sentences on the timeline; one still arriving gets its length estimated from the speech rate so far. */
function placed(placements: Map<number, Placement>, sampleRateHz: number): PlacedSentence[] {
  const all = [...placements.values()].sort((a, b) => a.sentence.index - b.sentence.index);
  const done = all.filter((p) => p.final);
  const chars = done.reduce((sum, p) => sum + p.sentence.text.length, 0);
  const samples = done.reduce((sum, p) => sum + (p.endSample - p.startSample), 0);
  const perChar = chars > 0 && samples > 0 ? samples / chars : (sampleRateHz * DEFAULT_MS_PER_CHAR) / 1000;
  return all.map((p) => ({
    text: p.sentence.text,
    startSample: p.startSample,
    endSample: p.final
      ? p.endSample
      : Math.max(p.endSample, p.startSample + Math.round(p.sentence.text.length * perChar)),
  }));
}
