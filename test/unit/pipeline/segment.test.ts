import { describe, expect, it } from 'vitest';
import { from, map, of } from 'rxjs';
import type { FrameContext, ScoredFrame, SegmenterEvent } from '../../../src/listen/speech-events.js';
import { ofType } from '../../../src/pipeline/events.js';
import { segment } from '../../../src/pipeline/segment.js';
import type { RunHelpers } from 'rxjs/internal/testing/TestScheduler';
import type { AssistantState } from '../../../src/dialog/turn.js';
import { judgeBargeIn } from '../../../src/pipeline/judge-barge-in.js';
import { testScheduler } from '../../helpers/marbles.js';

/** 10-sample frames at 1 kHz: one frame is 10 ms, so marble frames and audio frames line up. */
const CONFIG = {
  sampleRateHz: 1000,
  startThreshold: 0.5,
  stopThreshold: 0.35,
  speakingStartThreshold: 0.8,
  minSpeechMs: 30,
  endSilenceMs: 30,
  preRollMs: 20,
};
const frame = (probability: number, marker: number): ScoredFrame => ({
  samples: new Int16Array(10).fill(marker),
  probability,
  capturedAt: 0,
});
const FRAMES = { s: frame(0.9, 1), q: frame(0.1, 0), m: frame(0.6, 2) };
const summary = (event: SegmenterEvent): string => {
  switch (event.type) {
    case 'speech':
      return `S${event.durationMs}`;
    case 'silence':
      return `Q${event.silentMs}`;
    case 'utterance':
      return `U${event.utterance.samples.length}${event.utterance.final ? '' : '+'}`;
    case 'discarded':
      return `D${event.voicedMs}`;
    case 'tentative':
      return `T${event.utterance.samples.length}`;
  }
};
const listening = { speaking: false, listening: true };

describe('segment', () => {
  it('turns speech between silences into an utterance with pre-roll and trailing silence', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const frames = hot('qqqsssqqqq|', FRAMES);
      const events = frames.pipe(segment(CONFIG, of(listening)), map(summary));
      // Onset at frame 3; pre-roll 2 frames; speech 3 frames; silence ends it after 3 frames.
      expectObservable(events).toBe('---abcxyu-|', { a: 'S10', b: 'S20', c: 'S30', x: 'Q10', y: 'Q20', u: 'U80' });
    });
  });

  it('drops a blip shorter than minSpeechMs', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('qsqqqq|', FRAMES).pipe(segment(CONFIG, of(listening)), map(summary));
      expectObservable(events).toBe('-axyd-|', { a: 'S10', x: 'Q10', y: 'Q20', d: 'D10' });
    });
  });

  it('needs the raised threshold while hark is speaking', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('mmmmqqq|', FRAMES).pipe(
        segment(CONFIG, of({ speaking: true, listening: true })),
        map(summary),
      );
      expectObservable(events).toBe('-------|');
    });
  });

  it('hears nothing while not listening (half-duplex playback)', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('ssssqqq|', FRAMES).pipe(
        segment(CONFIG, of({ speaking: true, listening: false })),
        map(summary),
      );
      expectObservable(events).toBe('-------|');
    });
  });

  it('ends speech still going when the input ends, and unsubscribes upstream when cancelled', () => {
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const frames = hot('sssss|', FRAMES);
      const events = frames.pipe(segment(CONFIG, of(listening)), map(summary));
      expectObservable(events).toBe('abcde(u|)', { a: 'S10', b: 'S20', c: 'S30', d: 'S40', e: 'S50', u: 'U50' });
      const cancelled = hot('sssss|', FRAMES);
      expectObservable(cancelled.pipe(segment(CONFIG, of(listening)), map(summary)), '^-!').toBe('ab', {
        a: 'S10',
        b: 'S20',
      });
      expectSubscriptions(cancelled.subscriptions).toBe('^-!');
    });
  });

  it('cuts a monologue longer than the maximum into parts, the last one final', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const frames = hot('ssssssssqqq|', FRAMES);
      const events = frames.pipe(
        segment({ ...CONFIG, maxUtteranceMs: 60, minPartSpeechMs: 20 }, of(listening)),
        ofType('utterance'),
        map(({ utterance: u }) => `${u.part}${u.final ? 'F' : ''}`),
      );
      // Each cut leaves 20 ms of speech for the next part, so 80 ms of speech makes three parts.
      expectObservable(events).toBe('-----a---bc|', { a: '0', b: '1', c: '2F' });
    });
  });
});

describe('segment, with tentative utterances and decided endpoints', () => {
  const SPECULATING = { ...CONFIG, speculateAfterMs: 20, endSilenceMs: 50 };
  /** Each event with the frame it came on (10 ms frames), by where it ends on the stream. */
  function eventsOf(frames: string, context: FrameContext): string[] {
    const out: string[] = [];
    from([...frames].map((f) => FRAMES[f as keyof typeof FRAMES]))
      .pipe(segment(SPECULATING, of(context)))
      .subscribe((event) => {
        const endMs =
          event.type === 'utterance' || event.type === 'tentative'
            ? event.utterance.endMs
            : 'atMs' in event
              ? event.atMs
              : 0;
        out.push(`${endMs / 10 - 1}:${summary(event)}`);
      });
    return out;
  }

  it('offers the speech so far once a pause has lasted speculateAfterMs, once per pause', () => {
    // Pause at 3-4: offered then (30 ms of speech, 20 ms of trailing silence); speech again at 5;
    // the next pause offers at 7; 50 ms of silence ends the utterance at 10.
    expect(eventsOf('sssqqsqqqqq', listening).filter((e) => /T|U/.test(e))).toEqual(['4:T50', '7:T80', '10:U110']);
  });

  it('ends the utterance after the silence an endpoint decided for it, earlier or later than usual', () => {
    const ends = (silenceMs: number) =>
      eventsOf('sssqqqqqqqqqq', { ...listening, endpoint: { utteranceId: 1, silenceMs } }).filter((e) =>
        e.includes('U'),
      );
    expect(ends(20)).toEqual(['4:U50']);
    expect(ends(80)).toEqual(['10:U110']);
    // An endpoint decided for another utterance does not apply.
    expect(
      eventsOf('sssqqqqqqqqqq', { ...listening, endpoint: { utteranceId: 9, silenceMs: 20 } }).filter((e) =>
        e.includes('U'),
      ),
    ).toEqual(['7:U80']);
  });
});

describe('judgeBargeIn', () => {
  const POLICY = { minSpeechMs: 40, resumeAfterMs: 20 };
  const judged = (hot: RunHelpers['hot'], frames: string, hark: AssistantState) =>
    hot(frames, FRAMES).pipe(
      segment(CONFIG, of(listening)),
      judgeBargeIn(POLICY, of(hark)),
      map((event) => event.phase),
    );

  it('pauses the reply at the first word and confirms the interruption once speech lasts the minimum', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const phases = judged(hot, 'qqsssssqqq|', 'speaking');
      expectObservable(phases).toBe('--p--c----|', { p: 'paused', c: 'confirmed' });
    });
  });

  it('a cough pauses the reply, which plays on after a little silence: no interruption', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const phases = judged(hot, 'qssqqqqq|', 'speaking');
      expectObservable(phases).toBe('-p--r---|', { p: 'paused', r: 'resumed' });
    });
  });

  it('while hark thinks, long enough speech interrupts without a pause; while it listens, nothing happens', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      expectObservable(judged(hot, 'sssssqqq|', 'thinking')).toBe('---c----|', {
        c: 'confirmed',
      });
      expectObservable(judged(hot, 'sssssqqq|', 'listening')).toBe('--------|');
    });
  });
});
