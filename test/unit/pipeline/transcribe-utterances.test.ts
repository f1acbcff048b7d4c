import { describe, expect, it } from 'vitest';
import { type Observable, map, of, tap } from 'rxjs';
import type { Utterance } from '../../../src/listen/speech-events.js';
import type { TranscribeResult, Transcriber } from '../../../src/pipeline/ports.js';
import type { ListenEvent, TranscriptEvent } from '../../../src/pipeline/events.js';
import { transcribeUtterances } from '../../../src/pipeline/transcribe-utterances.js';
import { promptTail } from '../../../src/listen/transcript.js';
import { silentLogger } from '../../../src/system/logger.js';
import { testScheduler } from '../../helpers/marbles.js';

const utteranceOf = (id: number, part: number, final: boolean): Utterance => ({
  id,
  part,
  final,
  samples: new Int16Array(1600),
  sampleRateHz: 16000,
  onsetMs: 0,
  endMs: 100,
  overlapped: false,
  onsetAt: 0,
  speechEndedAt: 0,
});
const utterance = (id: number, part: number, final: boolean): ListenEvent => ({
  type: 'utterance',
  utterance: utteranceOf(id, part, final),
});
const tentative = (id: number): ListenEvent => ({ type: 'tentative', utterance: utteranceOf(id, 0, true) });
const speech = (id: number): ListenEvent => ({
  type: 'speech',
  id,
  onsetMs: 0,
  onsetAt: 0,
  durationMs: 500,
  doubtfulMs: 0,
  clearMs: 0,
  atMs: 0,
});
const summary = (event: TranscriptEvent): string =>
  event.type === 'transcript'
    ? `${event.transcript.text}|${event.transcript.parts}`
    : event.type === 'transcription-failed'
      ? 'failed'
      : event.type;
const tagged = (event: TranscriptEvent): string =>
  event.type === 'transcript' && event.transcript.tentative ? `guess:${event.transcript.text}` : summary(event);
const clock = (): number => 0;
const NO_GUESSES = of(false);
const GUESSES = of(true);

/** A transcriber whose every call is the next of the given cold observables; it notes each prompt. */
function scripted(calls: Observable<TranscribeResult>[]): Transcriber & { prompts: (string | undefined)[] } {
  const prompts: (string | undefined)[] = [];
  return {
    prompts,
    transcribe: (_wav, prompt) => {
      prompts.push(prompt);
      const next = calls.shift();
      if (!next) throw new Error('unexpected transcription call');
      return next;
    },
  };
}

describe('transcribeUtterances', () => {
  it("joins a long monologue's parts into one transcript, each part prompted with the tail so far", () => {
    const first = 'the first half of a long story that goes on and on about many things';
    let transcriber: ReturnType<typeof scripted> | undefined;
    testScheduler().run(({ cold, hot, expectObservable }) => {
      transcriber = scripted([
        cold('--(r|)', { r: { text: first } }),
        cold('--(r|)', { r: { text: 'and its end.' } }),
        cold('--(r|)', { r: { text: 'Next question?' } }),
      ]);
      const heard = hot('-a--b-----c|', {
        a: utterance(1, 0, false),
        b: utterance(1, 1, true),
        c: utterance(2, 0, true),
      });
      expectObservable(
        heard.pipe(transcribeUtterances(transcriber, silentLogger, clock, NO_GUESSES), map(summary)),
      ).toBe('------x-----(y|)', {
        x: `${first} and its end.|2`,
        y: 'Next question?|1',
      });
    });
    expect(transcriber?.prompts).toEqual([undefined, promptTail(first), undefined]);
  });

  it('never lets an empty transcript through', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const transcriber = scripted([cold('-(r|)', { r: { text: ' … ' } })]);
      const heard = hot('-a|', { a: utterance(1, 0, true) });
      expectObservable(
        heard.pipe(transcribeUtterances(transcriber, silentLogger, clock, NO_GUESSES), map(summary)),
      ).toBe('--(e|)', {
        e: 'empty',
      });
    });
  });

  it('reports a failed transcription and skips the rest of that speech, then carries on', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const transcriber = scripted([cold('-#', {}, new Error('503')), cold('-(r|)', { r: { text: 'Hello.' } })]);
      const heard = hot('-a-b-c|', { a: utterance(1, 0, false), b: utterance(1, 1, true), c: utterance(2, 0, true) });
      expectObservable(
        heard.pipe(transcribeUtterances(transcriber, silentLogger, clock, NO_GUESSES), map(summary)),
      ).toBe('--f---(t|)', {
        f: 'failed',
        t: 'Hello.|1',
      });
    });
  });

  it('stamps the end of speech and the transcript with the clock it is given', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const transcriber = scripted([cold('---(r|)', { r: { text: 'Timed.' } })]);
      const heard = hot('--a|', { a: utterance(1, 0, true) });
      const times = heard.pipe(
        transcribeUtterances(transcriber, silentLogger, () => scheduler.now(), NO_GUESSES),
        map((e) => (e.type === 'transcript' ? `${e.transcript.endpointedAt}-${e.transcript.transcriptAt}` : '')),
      );
      expectObservable(times).toBe('-----(t|)', { t: '2-5' });
    });
  });

  it('unsubscribing aborts the transcription in flight', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const call = cold('-----(r|)', { r: { text: 'never' } });
      const heard = hot('-a', { a: utterance(1, 0, true) });
      expectObservable(
        heard.pipe(transcribeUtterances(scripted([call]), silentLogger, clock, NO_GUESSES)),
        '^---!',
      ).toBe('-');
      expectSubscriptions(call.subscriptions).toBe('-^--!');
    });
  });

  it('a guess at a pause is given out as tentative; if the utterance ends there, it is the transcript, without a second request', () => {
    let transcriber: ReturnType<typeof scripted> | undefined;
    testScheduler().run(({ cold, hot, expectObservable }) => {
      transcriber = scripted([cold('--(r|)', { r: { text: 'What time is it?' } })]);
      const heard = hot('-t---u|', { t: tentative(1), u: utterance(1, 0, true) });
      expectObservable(heard.pipe(transcribeUtterances(transcriber, silentLogger, clock, GUESSES), map(tagged))).toBe(
        '---g-x|',
        { g: 'guess:What time is it?', x: 'What time is it?|1' },
      );
    });
    expect(transcriber?.prompts).toHaveLength(1);
  });

  it('when the user goes on after the pause, the guess is dropped (its request cancelled) and retracted', () => {
    const events: TranscriptEvent[] = [];
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const guess = cold<TranscribeResult>('-----(r|)', { r: { text: 'Add eggs' } });
      const final = cold<TranscribeResult>('-(r|)', { r: { text: 'Add eggs and milk.' } });
      const heard = hot('-t-s---u|', { t: tentative(1), s: speech(1), u: utterance(1, 0, true) });
      const out = heard.pipe(transcribeUtterances(scripted([guess, final]), silentLogger, clock, GUESSES));
      expectObservable(
        out.pipe(
          tap((event) => events.push(event)),
          map(tagged),
        ),
      ).toBe('---r----(x|)', { r: 'retracted', x: 'Add eggs and milk.|1' });
      expectSubscriptions(guess.subscriptions).toBe('-^-!');
    });
    const transcript = events.find((e) => e.type === 'transcript');
    expect(transcript?.type === 'transcript' && transcript.transcript.droppedGuesses).toBe(1);
  });

  it('makes no guess while guessing is not allowed (hark is busy)', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const transcriber = scripted([cold('-(r|)', { r: { text: 'Hello.' } })]);
      const heard = hot('-t---u|', { t: tentative(1), u: utterance(1, 0, true) });
      expectObservable(
        heard.pipe(transcribeUtterances(transcriber, silentLogger, clock, NO_GUESSES), map(tagged)),
      ).toBe('------(x|)', { x: 'Hello.|1' });
    });
  });

  it('tells the transcriber once per stretch of speech, as it begins, so a connection is ready when it ends', () => {
    const prepared: string[] = [];
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const transcriber = {
        ...scripted([cold('-(r|)', { r: { text: 'One.' } }), cold('-(r|)', { r: { text: 'Two.' } })]),
        prepare: () => prepared.push('ready'),
      };
      const heard = hot('-aaa-u-bb-v|', {
        a: speech(1),
        u: utterance(1, 0, true),
        b: speech(2),
        v: utterance(2, 0, true),
      });
      expectObservable(
        heard.pipe(
          tap((event) => event.type === 'speech' && prepared.push(`speech ${event.id}`)),
          transcribeUtterances(transcriber, silentLogger, clock, NO_GUESSES),
          map(tagged),
        ),
      ).toBe('------x----(y|)', { x: 'One.|1', y: 'Two.|1' });
    });
    expect(prepared).toEqual(['speech 1', 'ready', 'speech 1', 'speech 1', 'speech 2', 'ready', 'speech 2']);
  });
});
