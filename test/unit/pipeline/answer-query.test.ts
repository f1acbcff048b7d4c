import { describe, expect, it } from 'vitest';
import { BehaviorSubject, NEVER, Subject, finalize, of, type Subscription } from 'rxjs';
import type { ReplyEvent } from '../../../src/contract/reply.js';
import { newConversation } from '../../../src/dialog/conversation.js';
import type { ToolActivity } from '../../../src/dialog/tool-calls.js';
import type { Transcript } from '../../../src/dialog/turn.js';
import { answerQuery } from '../../../src/pipeline/answer-query.js';
import type { TurnEvent } from '../../../src/pipeline/events.js';
import { immediateScheduler } from '../../../src/system/immediate-scheduler.js';
import { FakePlayer, RecordingEarcons } from '../../helpers/fakes.js';

const checkPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

const transcript: Transcript = {
  utteranceId: 1,
  text: 'What time is it?',
  parts: 1,
  audioMs: 1000,
  speechEndedAt: 0,
  endpointedAt: 0,
  transcriptionRequestAt: 0,
  transcriptAt: 0,
  overlapped: false,
  tentative: false,
  droppedGuesses: 0,
};

/** One turn whose reply the test streams; what the service was asked, and what the turn did. */
function turn() {
  const reply = new Subject<ReplyEvent | ToolActivity>();
  const seen = { requests: 0, closed: 0, events: [] as TurnEvent[] };
  const answer = answerQuery({
    speech: {
      model: 'tts',
      voice: null,
      instructions: null,
      sampleRateHz: 16000,
      speed: 1,
      volume: 1,
      pitch: 1,
      lookahead: 1,
      lowWaterMs: 200,
    },
    conversation: new BehaviorSubject(newConversation()),
    replyModel: {
      reply: () => {
        seen.requests++;
        return reply.pipe(finalize(() => seen.closed++));
      },
    },
    synthesizer: { sampleRateHz: 16000, synthesize: () => of(Buffer.alloc(320)) },
    player: new FakePlayer(16000, () => performance.now()),
    earcons: new RecordingEarcons(),
    now: () => performance.now(),
    later: immediateScheduler,
  });
  const control = { cut: NEVER, start: of(transcript), text: of(transcript.text), droppedReplies: 0 };
  const start = (): Subscription =>
    answer({ text: transcript.text, transcript }, control).subscribe((event) => seen.events.push(event));
  return { reply, seen, start };
}

describe('answerQuery', () => {
  it('asks for the reply before it sets up the rest of the turn, and loses nothing that comes back meanwhile', async () => {
    const { reply, seen, start } = turn();
    start();
    // The request is made at once; the turn's stages (its first is the thinking state) come after it is written.
    expect(seen.requests).toBe(1);
    expect(seen.events).toEqual([]);
    reply.error(new Error('the service said no'));
    await checkPhase();
    expect(seen.events.at(0)).toEqual({ type: 'state', state: 'thinking' });
    const record = seen.events.find((event) => event.type === 'turn');
    expect(record?.type === 'turn' && record.turn.failed?.message).toBe('the service said no');
  });

  it('closes the request of a turn cut before it was set up', async () => {
    const { seen, start } = turn();
    const running = start();
    running.unsubscribe();
    expect(seen.closed).toBe(1);
    await checkPhase();
    expect(seen.events).toEqual([]);
  });
});
