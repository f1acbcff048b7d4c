import { describe, it } from 'vitest';
import { NEVER, map, type Observable } from 'rxjs';
import { newConversation, type Conversation } from '../../../src/dialog/conversation.js';
import type { GatePolicy } from '../../../src/dialog/gate.js';
import type { AssistantState, Transcript } from '../../../src/dialog/turn.js';
import { admitTranscripts } from '../../../src/pipeline/admit-transcripts.js';
import type { GateEvent, InterruptionEvent, TranscriptEvent } from '../../../src/pipeline/events.js';
import { testScheduler } from '../../helpers/marbles.js';
import { transcript } from '../../helpers/turns.js';

const NO_WAKE_PHRASE: GatePolicy = { wakePhrases: [], stopPhrases: ['stop'], stopAfterInterruptionMs: 10 };
const HEY_HARK: GatePolicy = { ...NO_WAKE_PHRASE, wakePhrases: ['hey hark'] };

/** What utterance `id` was heard to say; `guess`: at a pause, the user may go on. */
function heard(text: string, how: { id?: number; guess?: boolean; overHark?: boolean } = {}): TranscriptEvent {
  const words: Transcript = {
    ...transcript(text),
    utteranceId: how.id ?? 1,
    tentative: how.guess ?? false,
    overlapped: how.overHark ?? false,
  };
  return { type: 'transcript', transcript: words };
}

/** The gate's verdict as the log tells it. */
function verdict(event: GateEvent): string {
  if (event.type === 'query') return `query "${event.query.text}"`;
  if (event.type === 'ignored') return `refused: ${event.reason}`;
  return event.type;
}

interface Surroundings {
  policy?: () => GatePolicy;
  state?: Observable<AssistantState>;
  conversation?: Observable<Conversation>;
  interruptions?: Observable<InterruptionEvent>;
}

function admitting(
  transcripts: Observable<TranscriptEvent>,
  now: () => number,
  around: Surroundings,
  idle: Observable<AssistantState>,
  fresh: Observable<Conversation>,
): Observable<string> {
  return transcripts.pipe(
    admitTranscripts(
      around.policy ?? (() => NO_WAKE_PHRASE),
      around.state ?? idle,
      around.conversation ?? fresh,
      around.interruptions ?? NEVER,
      now,
    ),
    map(verdict),
  );
}

describe('admitTranscripts', () => {
  it('with no wake phrase, what the user says is a query; speech that came to no words is no verdict at all', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const transcripts = hot<TranscriptEvent>('-e-q-f', {
        e: { type: 'empty', utteranceId: 1, audioMs: 300 },
        q: heard('Turn on the light.'),
        f: { type: 'transcription-failed', utteranceId: 2, error: new Error('service unavailable') },
      });
      const out = admitting(
        transcripts,
        () => scheduler.now(),
        {},
        hot('l', { l: 'listening' }),
        hot('c', { c: newConversation() }),
      );
      expectObservable(out).toBe('---q', { q: 'query "Turn on the light."' });
    });
  });

  it('with a wake phrase: refused without it, a query with it taken off, the phrase alone a wake, and no phrase needed in the follow-up window', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const transcripts = hot('-abc-d----e', {
        a: heard('Turn on the light.'),
        b: heard('Hey hark, turn on the light.'),
        c: heard('Hey hark.'),
        d: heard('And the kitchen.'),
        e: heard('And the hall.'),
      });
      // A reply heard to its end at 4 opened the window until 9.
      const conversation = hot('c---o', { c: newConversation(), o: { ...newConversation(), followUpUntil: 9 } });
      const out = admitting(
        transcripts,
        () => scheduler.now(),
        { policy: () => HEY_HARK, conversation },
        hot('l', { l: 'listening' }),
        NEVER,
      );
      expectObservable(out).toBe('-abc-d----e', {
        a: 'refused: no wake phrase',
        b: 'query "turn on the light."',
        c: 'wake',
        d: 'query "And the kitchen."',
        e: 'refused: no wake phrase',
      });
    });
  });

  it('"stop" stops hark while it speaks and just after the user talked over it; said to an idle hark it is no stop', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const transcripts = hot('-a-b-c-d--------e', {
        a: heard('Stop.'),
        b: heard('Stop.'),
        c: heard('Stop.'),
        d: heard('Stop.'),
        e: heard('Stop.'),
      });
      const state = hot<AssistantState>('l-s-l', { l: 'listening', s: 'speaking' });
      // The user talked over hark at 5: "stop" counts for 10 ms after.
      const conversation = hot('c----i', { c: newConversation(), i: { ...newConversation(), interruptedAt: 5 } });
      const out = admitting(transcripts, () => scheduler.now(), { state, conversation }, NEVER, NEVER);
      expectObservable(out).toBe('-a-b-c-d--------e', {
        a: 'query "Stop."',
        b: 'stop',
        c: 'query "Stop."',
        d: 'stop',
        e: 'query "Stop."',
      });
    });
  });

  it("hark's own voice heard back while it spoke is refused; the same words said while it was silent are a query", () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const transcripts = hot('-ab', {
        a: heard('The kitchen light is on.', { overHark: true }),
        b: heard('The kitchen light is on.'),
      });
      const conversation = hot('c', { c: { ...newConversation(), said: ['The kitchen light is on.'] } });
      const out = admitting(transcripts, () => scheduler.now(), { conversation }, hot('l', { l: 'listening' }), NEVER);
      expectObservable(out).toBe('-ab', { a: 'refused: own voice', b: 'query "The kitchen light is on."' });
    });
  });

  it('speech over hark that the barge-in judge dismissed is refused whatever its words; the latest eight are remembered', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const dismissed = (utteranceId: number): InterruptionEvent => ({
        type: 'interruption',
        phase: 'dismissed',
        atMs: utteranceId,
        utteranceId,
      });
      // Utterances 1 to 9 dismissed, one a frame: by 10, utterance 1 is forgotten.
      const interruptions = hot(
        '-123456789',
        Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8, 9].map((id) => [id, dismissed(id)])),
      );
      const transcripts = hot('--a---------bc', {
        a: heard('Turn it up.', { id: 1 }),
        b: heard('Turn it up.', { id: 1 }),
        c: heard('Turn it up.', { id: 2 }),
      });
      const out = admitting(
        transcripts,
        () => scheduler.now(),
        { interruptions },
        hot('l', { l: 'listening' }),
        hot('c', { c: newConversation() }),
      );
      expectObservable(out).toBe('--a---------bc', {
        a: 'refused: not an interruption',
        b: 'query "Turn it up."',
        c: 'refused: not an interruption',
      });
    });
  });

  it('a guess at a pause is a query only when its words sound finished; a guess refused is not told', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const transcripts = hot('-abc', {
        a: heard('Add eggs and', { guess: true }),
        b: heard('Add eggs to the list.', { guess: true }),
        c: heard('Eggs to the list.', { guess: true }),
      });
      const out = admitting(
        transcripts,
        () => scheduler.now(),
        { policy: () => ({ ...HEY_HARK, wakePhrases: [] }) },
        hot('l', { l: 'listening' }),
        hot('c', { c: newConversation() }),
      );
      expectObservable(out).toBe('--bc', { b: 'query "Add eggs to the list."', c: 'query "Eggs to the list."' });
    });
    scheduler.run(({ hot, expectObservable }) => {
      const out = admitting(
        hot('-a', { a: heard('Add eggs to the list.', { guess: true }) }),
        () => scheduler.now(),
        { policy: () => HEY_HARK },
        hot('l', { l: 'listening' }),
        hot('c', { c: newConversation() }),
      );
      expectObservable(out).toBe('--');
    });
  });

  it('the policy is read as each transcript comes', () => {
    const scheduler = testScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      let policy = NO_WAKE_PHRASE;
      hot('---w').subscribe(() => (policy = HEY_HARK));
      const transcripts = hot('-a---b', { a: heard('Lights off.'), b: heard('Lights off.') });
      const out = admitting(
        transcripts,
        () => scheduler.now(),
        { policy: () => policy },
        hot('l', { l: 'listening' }),
        hot('c', { c: newConversation() }),
      );
      expectObservable(out).toBe('-a---b', { a: 'query "Lights off."', b: 'refused: no wake phrase' });
    });
  });
});
