import { NEVER, tap, type Observable } from 'rxjs';
import type { ColdObservable } from 'rxjs/internal/testing/ColdObservable';
import type { TestScheduler } from 'rxjs/testing';
import { defaultConfig, type HarkConfig } from '../../src/config/schema.js';
import type { ReplyEvent } from '../../src/contract/reply.js';
import type { Message } from '../../src/dialog/conversation.js';
import type { ToolActivity } from '../../src/dialog/tool-calls.js';
import type { Turn } from '../../src/dialog/turn.js';
import { assistant } from '../../src/pipeline/assistant.js';
import type { AssistantEvent } from '../../src/pipeline/events.js';
import type { TranscribeResult, Vad } from '../../src/pipeline/ports.js';
import { silentLogger } from '../../src/system/logger.js';
import { FakePlayer, RecordingEarcons, pcm } from './fakes.js';
import type { ScriptedWakeWord } from './wake-word.js';
import { testScheduler } from './marbles.js';

/**
 * The whole voice loop on virtual time. Each marble frame of the input is one 512-sample VAD
 * frame (32 ms of audio) whose samples hold a marker the fake VAD reads as its score: `s` is
 * speech (0.9), `q` quiet (0.1). Speech needs 2 frames, 2 quiet frames end it, and 3 frames of
 * speech over hark's voice cut it. hark speaks at 1 kHz: a sentence is 10 ms of audio, each
 * marble frame one sample played.
 */
const frame = (marker: number): Buffer => Buffer.from(new Int16Array(512).fill(marker).buffer);
const AUDIO = { s: frame(90), q: frame(10) };
const vad: Vad = {
  name: 'energy',
  frameSamples: 512,
  probability: (samples) => (samples[0] as number) / 100,
  reset: () => undefined,
  close: async () => undefined,
};

export function config(change?: (c: HarkConfig) => void): HarkConfig {
  const c = defaultConfig();
  c.vad = { ...c.vad, minSpeechMs: 64, endSilenceMs: 64, preRollMs: 0, trailingSilenceMs: 0 };
  c.bargeIn.minSpeechMs = 96;
  // The scripted speech is timed to that minimum; the wait after a pause has the judge's own test.
  c.bargeIn.confirmAfterPauseMs = 0;
  c.speech.lowWaterMs = 3;
  change?.(c);
  return c;
}

const text = (t: string): ReplyEvent => ({ type: 'text', text: t });
const DONE: ReplyEvent = {
  type: 'done',
  stopReason: 'stop',
  usage: { inputTokens: 9, outputTokens: 12, totalTokens: 21 },
};
const call = { callId: 'c1', name: 'set_timer', args: '{"duration_seconds":3}' };
const THREE: Record<string, ReplyEvent | ToolActivity> = {
  a: text('First sentence is here. '),
  b: text('Second sentence is here. '),
  c: text('Third one ends it.'),
  d: DONE,
  t: { type: 'tool', phase: 'started', ...call },
  f: { type: 'tool', phase: 'finished', ...call, result: 'Timer set.', ms: 3 },
};

interface Script {
  transcripts: string[];
  /** One marble reply per chat request, with THREE's values. */
  replies: string[];
  /** Marbles of each transcription (default: the text after a frame). */
  transcription?: string;
  /** Marbles of each sentence's synthesis (default: 10 ms of audio after 2 frames). */
  synth?: (sentence: string) => string;
}

export interface Run {
  events: { at: number; event: AssistantEvent }[];
  /** When the loop completed. */
  completedAt: number | undefined;
  turns: Turn[];
  /** What each chat request was asked. */
  asked: Message[][];
  transcriptions: number;
  /** Samples of audio in each transcription request. */
  transcribedSamples: number[];
  replies: ColdObservable<ReplyEvent | ToolActivity>[];
  synth: Map<string, ColdObservable<Buffer>>;
  player: FakePlayer;
  earcons: RecordingEarcons;
}

export function run(
  input: string,
  script: Script,
  options: {
    queue?: boolean;
    config?: HarkConfig;
    shutdown?: string;
    wake?: ScriptedWakeWord;
    /** Marbles of the stop button, and of whether anyone looks at the meters (t/f). */
    stops?: string;
    metering?: string;
    announcements?: string;
    /** Marbles of what the home asks hark to say: `a` and `b` announcements, `k` a question. */
    notices?: string;
    /** Marbles of a listen button's presses. */
    listens?: string;
    /** Frames from a turn's reply request to its other stages being built (in hark: a turn of the event loop). */
    stagesLateBy?: number;
    /** Marbles of the player failing: `d` it dies (what it had not played is lost), `x` it cannot play until `o` (it is back). */
    playerFails?: string;
  } = {},
): Run {
  const scheduler: TestScheduler = testScheduler();
  const result: Run = {
    events: [],
    completedAt: undefined,
    turns: [],
    asked: [],
    transcriptions: 0,
    transcribedSamples: [],
    replies: [],
    synth: new Map(),
    player: new FakePlayer(1000, () => scheduler.now()),
    earcons: new RecordingEarcons(),
  };
  scheduler.run(({ cold, hot }) => {
    if (options.playerFails) {
      const why = 'aplay exited with 1: audio open error: No such device';
      hot(options.playerFails).subscribe((what) => {
        if (what === 'd') result.player.die(why);
        result.player.down = what === 'x' ? why : what === 'o' ? undefined : result.player.down;
      });
    }
    const transcripts = [...script.transcripts];
    const replies = [...script.replies];
    const loop = hot(input, AUDIO).pipe(
      assistant({
        config: options.config ?? config(),
        vad,
        transcriber: {
          transcribe: (wav): Observable<TranscribeResult> => {
            result.transcriptions++;
            result.transcribedSamples.push((wav.length - 44) / 2);
            return cold(script.transcription ?? '-(r|)', { r: { text: transcripts.shift() ?? '' } });
          },
        },
        replyModel: {
          reply: (messages) => {
            result.asked.push(messages);
            const reply = cold<ReplyEvent | ToolActivity>(replies.shift() ?? '(d|)', THREE);
            result.replies.push(reply);
            return reply;
          },
        },
        synthesizer: {
          sampleRateHz: 1000,
          synthesize: (sentence) => {
            const request = cold<Buffer>(
              script.synth?.(sentence) ?? '--x|',
              { x: pcm(10, 1000) },
              new Error('tts failed'),
            );
            result.synth.set(sentence, request);
            return request;
          },
        },
        player: result.player,
        earcons: result.earcons,
        logger: silentLogger,
        queue: options.queue ?? false,
        wake: options.wake,
        shutdown: options.shutdown ? hot(options.shutdown) : NEVER,
        stops: options.stops ? hot(options.stops) : undefined,
        listens: options.listens ? hot(options.listens) : undefined,
        metering: options.metering ? hot(options.metering, { t: true, f: false }) : undefined,
        announcements: options.announcements
          ? hot(options.announcements, {
              p: { id: 't1', text: 'Your pasta timer is done.' },
              e: { id: 't2', text: 'Your egg timer is done.' },
            })
          : undefined,
        notices: options.notices
          ? hot(options.notices, {
              a: { id: 'n1', kind: 'announce' as const, text: 'The washing is done.', arrivedAt: 0 },
              b: { id: 'n2', kind: 'announce' as const, text: 'The post is here.', arrivedAt: 0 },
              k: { id: 'n3', kind: 'ask' as const, text: 'Shall I lock the door?', arrivedAt: 0 },
            })
          : undefined,
        afterIo: (work) => {
          const scheduled = scheduler.schedule(work, options.stagesLateBy ?? 0);
          return () => scheduled.unsubscribe();
        },
        now: () => scheduler.now(),
      }),
      tap((event) => {
        result.events.push({ at: scheduler.now(), event });
        if (event.type === 'turn') result.turns.push(event.turn);
      }),
    );
    loop.subscribe({ complete: () => (result.completedAt = scheduler.now()) });
  });
  return result;
}

export const firstTurnAt = (r: Run): number | undefined => r.events.find(({ event }) => event.type === 'turn')?.at;
export const statesOf = (r: Run): string[] =>
  r.events.flatMap(({ at, event }) => (event.type === 'state' ? [`${at}:${event.state}`] : []));
