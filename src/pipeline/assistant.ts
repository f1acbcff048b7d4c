import {
  BehaviorSubject,
  Observable,
  Subject,
  concatMap,
  defer,
  filter,
  identity,
  mergeMap,
  of,
  share,
  switchMap,
  takeUntil,
  tap,
  EMPTY,
} from 'rxjs';
import type { Earcons } from '../audio/earcons.js';
import { durationMs } from '../audio/pcm.js';
import type { Player } from '../audio/player.js';
import type { HarkConfig } from '../config/schema.js';
import { ConversationHistory } from '../dialog/history.js';
import type { SegmenterEvent } from '../listen/segmenter.js';
import { VAD_FRAME_SAMPLES, VAD_SAMPLE_RATE_HZ, type Vad } from '../listen/vad.js';
import type { Logger } from '../system/logger.js';
import { userSpeaking } from './barge-in.js';
import { scoreVoice, segment, toFrames, utterances } from './listen.js';
import type { ReplyModel, Synthesizer, Transcriber } from './ports.js';
import { logTurn } from './turn-log.js';
import { runTurn, type AssistantState, type TurnOutcome } from './turn.js';
import type { TurnGate } from './turn-gate.js';
import { transcribeUtterances, type HeardEvent, type UserTurn } from './user-turns.js';

export interface AssistantOptions {
  config: HarkConfig;
  /** 16 kHz 16-bit mono PCM. */
  source: Observable<Buffer>;
  vad: Vad;
  transcriber: Transcriber;
  replyModel: ReplyModel;
  synthesizer: Synthesizer;
  player: Player;
  earcons: Earcons;
  logger: Logger;
  /** Input faster than real time: turns wait for each other and nobody talks over anybody. */
  queueTurns?: boolean;
  /** Decides which transcripts become turns (wake phrases, stop words); all of them when absent. */
  gate?: TurnGate;
  now?: () => number;
}

/**
 * The voice loop: microphone → frames → VAD → segmenter → transcription → reply →
 * speakable text → sentences → synthesis (look-ahead) → player. Speech lasting
 * `bargeIn.minSpeechMs` while hark thinks or speaks unsubscribes the turn (barge-in).
 */
export class Assistant {
  readonly state$ = new BehaviorSubject<AssistantState>('listening');
  readonly outcomes$ = new Subject<TurnOutcome>();
  /** Each barge-in, as it happens: the onset that counted (stream ms) and how long stopping took. */
  readonly interruptions$ = new Subject<{
    speechOnsetMs: number;
    onsetToStopMs: number | undefined;
    heardMs: number;
  }>();
  readonly history: ConversationHistory;
  /** The words of a turn cut off before it said anything: they open the next one. */
  private carried = '';
  /** When the first audio arrived (monotonic ms), so stream time can be told as wall time. */
  private inputStartedAt: number | undefined;
  /** Stream time (ms) of the latest speech onset. */
  private speechOnsetMs = 0;

  constructor(private readonly options: AssistantOptions) {
    this.history = new ConversationHistory(options.config.history);
  }

  /** Runs until the input ends and the last turn is over. */
  run(): Observable<never> {
    return defer(() => {
      const { config, logger } = this.options;
      const bargeIn = config.bargeIn.enabled && !this.options.queueTurns;
      const now = this.options.now ?? (() => performance.now());

      const events = this.options.source.pipe(
        // A chunk arrives once captured: the input began one chunk before the first arrived.
        tap((chunk) => (this.inputStartedAt ??= now() - durationMs(chunk.length, VAD_SAMPLE_RATE_HZ))),
        toFrames(VAD_FRAME_SAMPLES),
        scoreVoice(this.options.vad, logger, config.vad.energyGateDbfs),
        segment({ ...config.vad, sampleRateHz: VAD_SAMPLE_RATE_HZ }, () => ({
          speaking: this.state$.value === 'speaking',
          listening: bargeIn || this.state$.value !== 'speaking',
        })),
        tap((event) => this.noteListening(event)),
        share(),
      );
      const interruption = userSpeaking(events, config.bargeIn.minSpeechMs).pipe(filter(Boolean));

      const turns = events.pipe(
        utterances(),
        transcribeUtterances(this.options.transcriber, logger, now),
        tap((event) => this.onHeard(event)),
        mergeMap((event) => (event.type === 'user-turn' ? of(event.turn) : EMPTY)),
        (this.options.queueTurns ? concatMap : switchMap)((heard) =>
          defer(() => {
            const turn = this.admit(heard);
            if (!turn) return EMPTY;
            return runTurn(turn, this.history.withUser(turn.text), {
              ...this.options,
              lookahead: config.speech.lookahead,
              lowWaterMs: 300,
              onState: (state) => {
                if (state !== this.state$.value) logger.debug('assistant.state', { state });
                this.state$.next(state);
              },
              onOutcome: (outcome) => this.onOutcome(outcome),
            }).pipe(bargeIn ? takeUntil(interruption) : identity);
          }),
        ),
      );
      this.options.earcons.play('listening');
      return new Observable<never>((subscriber) => {
        const subscription = turns.subscribe({
          error: (error: unknown) => subscriber.error(error),
          complete: () => subscriber.complete(),
        });
        // Watches for barge-in all along, so its state is current when a turn starts.
        const keepWarm = bargeIn ? interruption.subscribe() : undefined;
        return () => {
          subscription.unsubscribe();
          keepWarm?.unsubscribe();
        };
      });
    });
  }

  /** Keeps the latest speech onset (for barge-in latency) and traces what the listener hears. */
  private noteListening(event: SegmenterEvent): void {
    const { logger } = this.options;
    if (event.type === 'speech' && event.onsetMs !== this.speechOnsetMs) {
      this.speechOnsetMs = event.onsetMs;
      logger.debug('listen.speech', {
        utterance: event.id,
        onsetMs: Math.round(event.onsetMs),
        state: this.state$.value,
      });
    } else if (event.type === 'utterance') {
      const { id, part, final, samples, sampleRateHz } = event.utterance;
      logger.debug('listen.utterance', {
        utterance: id,
        part,
        final,
        ms: Math.round((samples.length / sampleRateHz) * 1000),
      });
    } else if (event.type === 'discarded') {
      logger.debug('listen.discarded', { voicedMs: Math.round(event.voicedMs) });
    }
  }

  private admit(heard: UserTurn): UserTurn | undefined {
    const verdict = this.options.gate?.admit(heard, this.state$.value) ?? { kind: 'turn', turn: heard };
    if (verdict.kind === 'wake') this.options.earcons.play('listening');
    if (verdict.kind === 'stop') this.carried = '';
    if (verdict.kind !== 'turn') return undefined;
    const text = this.carried ? `${this.carried} ${verdict.turn.text}` : verdict.turn.text;
    this.carried = '';
    return { ...verdict.turn, text };
  }

  private onHeard(event: HeardEvent): void {
    const { logger } = this.options;
    if (event.type === 'empty')
      logger.info('turn.empty', { utterance: event.utteranceId, audioMs: Math.round(event.audioMs) });
    if (event.type === 'failed') {
      logger.error('turn.failed', { stage: 'transcription', utterance: event.utteranceId, error: event.error });
      this.options.earcons.play('error');
    }
  }

  /** When the input began (monotonic ms), so stream times can be told as wall times. */
  get inputStartedAtMs(): number | undefined {
    return this.inputStartedAt;
  }

  /** How long after the interrupting speech began playback stopped, as input and clocks tell it. */
  bargeInLatencyMs(outcome: TurnOutcome): number | undefined {
    if (outcome.stoppedAt === undefined || this.inputStartedAt === undefined) return undefined;
    return Math.round(outcome.stoppedAt - (this.inputStartedAt + this.speechOnsetMs));
  }

  private onOutcome(outcome: TurnOutcome): void {
    if (outcome.interrupted) {
      const interruption = {
        speechOnsetMs: Math.round(this.speechOnsetMs),
        onsetToStopMs: this.bargeInLatencyMs(outcome),
        heardMs: outcome.audioMs.played,
      };
      this.options.logger.info('barge-in', interruption);
      this.interruptions$.next(interruption);
      this.options.gate?.interrupted();
    }
    if (outcome.interrupted && !outcome.heard) {
      this.carried = outcome.user.text;
    } else if (outcome.heard || !outcome.failed) {
      const cut = outcome.interrupted || outcome.failed !== undefined;
      this.history.record(outcome.user.text, cut ? outcome.heard : outcome.reply, cut);
    }
    if (!outcome.interrupted && !outcome.failed) this.options.gate?.replied();
    logTurn(this.options.logger, outcome);
    this.outcomes$.next(outcome);
  }
}
