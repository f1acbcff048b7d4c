import { describe, it } from 'vitest';
import { NEVER, map, type Observable } from 'rxjs';
import type { Utterance } from '../../../src/listen/speech-events.js';
import type { ListenEvent } from '../../../src/pipeline/events.js';
import type { WakeWordDetection, WakeWordDetector } from '../../../src/pipeline/ports.js';
import { wakeGate, type WakeGateContext, type WakeGateOptions } from '../../../src/pipeline/wake-gate.js';
import { testScheduler } from '../../helpers/marbles.js';

/** A detector whose detections the test gives, all audio scored at once (or, `behind`, never all of it). */
function detector(detections: Observable<WakeWordDetection>, failedToLoad = false, behind = false): WakeWordDetector {
  return {
    models: ['hey_jarvis'],
    push: () => undefined,
    detections,
    scores: NEVER,
    drain: () => (behind ? new Promise<void>(() => undefined) : undefined),
    reset: () => undefined,
    close: async () => undefined,
    failedToLoad,
  };
}

/** "hey jarvis" heard, ending at `endMs` of the stream. */
const heyJarvis = (endMs: number): WakeWordDetection => ({ model: 'hey_jarvis', score: 0.9, atMs: endMs + 50, endMs });

/** Utterance `id`, said from `fromMs` to `toMs` of the stream, at 1 kHz (a sample a millisecond). */
function said(id: number, fromMs: number, toMs: number, type: 'utterance' | 'tentative' = 'utterance'): ListenEvent {
  const utterance: Utterance = {
    id,
    part: 0,
    final: type === 'utterance',
    samples: new Int16Array(toMs - fromMs),
    sampleRateHz: 1000,
    onsetMs: fromMs,
    endMs: toMs,
    onsetAt: fromMs,
    speechEndedAt: toMs,
    overlapped: false,
  };
  return { type, utterance };
}

/** What leaves the gate, as a user would be told: which speech goes on (and from where), or that it is kept. */
function told(event: ListenEvent): string {
  if (event.type === 'utterance' || event.type === 'tentative') {
    const { id, onsetMs, samples } = event.utterance;
    return `${event.type} ${id}: ${samples.length} ms from ${onsetMs}`;
  }
  if (event.type === 'no-wake-word') return `kept ${event.utteranceId}${event.tentative ? ' (guess)' : ''}`;
  return event.type;
}

const OPTIONS = { minSpeechMs: 200, bargeIn: 'any-speech' } as const;
const LISTENING: WakeGateContext = { state: 'listening', followUp: false };

function gate(
  events: Observable<ListenEvent>,
  wake: WakeWordDetector,
  context: Observable<WakeGateContext>,
  options: Partial<WakeGateOptions> = {},
): Observable<string> {
  return events.pipe(wakeGate({ ...OPTIONS, detector: wake, ...options }, context), map(told));
}

describe('wakeGate', () => {
  it('speech without the wake word is kept: nothing of it goes on', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('--u', { u: said(1, 0, 800) });
      expectObservable(gate(events, detector(NEVER), hot('c', { c: LISTENING }))).toBe('--k', { k: 'kept 1' });
    });
  });

  it('the wake word opens the gate: the utterance it ended in goes on, cut where it ended, and the wake word is spent', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('--u-v', { u: said(1, 0, 1000), v: said(2, 1200, 2000) });
      const wake = detector(hot('-d', { d: heyJarvis(300) }));
      expectObservable(gate(events, wake, hot('c', { c: LISTENING }))).toBe('--u-k', {
        u: 'utterance 1: 700 ms from 300',
        k: 'kept 2',
      });
    });
  });

  it('a wake word counts for one utterance only, even where the next one reaches back over it', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      // "hey jarvis" ends at 950 ms, the end of the first utterance (the wake word alone); the
      // second's first 100 ms (its pre-roll) hold it again.
      const events = hot('--u-v', { u: said(1, 0, 1000), v: said(2, 900, 2000) });
      const wake = detector(hot('-d', { d: heyJarvis(950) }));
      expectObservable(gate(events, wake, hot('c', { c: LISTENING }))).toBe('----k', { k: 'kept 2' });
    });
  });

  it('a wake word heard before the speech began opens nothing', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('--u', { u: said(1, 1000, 2000) });
      const wake = detector(hot('-d', { d: heyJarvis(900) }));
      expectObservable(gate(events, wake, hot('c', { c: LISTENING }))).toBe('--k', { k: 'kept 1' });
    });
  });

  it('the wake word alone sends nothing; the gate stays open for the window after it, and closes when the window ends', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      // "hey jarvis" (0-400 ms) alone; the loop opens the follow-up window at 3 and closes it at 7.
      const events = hot('--w--f---g', { w: said(1, 0, 400), f: said(2, 1000, 2000), g: said(3, 3000, 4000) });
      const wake = detector(hot('-d', { d: heyJarvis(350) }));
      const context = hot<WakeGateContext>('c--o---c', { c: LISTENING, o: { state: 'listening', followUp: true } });
      expectObservable(gate(events, wake, context)).toBe('-----f---k', {
        f: 'utterance 2: 1000 ms from 1000',
        k: 'kept 3',
      });
    });
  });

  it('while hark is busy, speech goes on without the wake word ("stop" works), unless talking over hark needs it', () => {
    for (const [bargeIn, expected] of [
      ['any-speech', 'utterance 1: 800 ms from 0'],
      ['wake-word', 'kept 1'],
    ] as const) {
      testScheduler().run(({ hot, expectObservable }) => {
        const events = hot('--u', { u: said(1, 0, 800) });
        const speaking = hot<WakeGateContext>('c', { c: { state: 'speaking', followUp: false } });
        expectObservable(gate(events, detector(NEVER), speaking, { bargeIn })).toBe('--x', { x: expected });
      });
    }
  });

  it('a guess at a pause goes on only as its utterance would, and does not spend the wake word', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('--gu-h', {
        g: said(1, 0, 900, 'tentative'),
        u: said(1, 0, 1000),
        h: said(2, 2000, 2500, 'tentative'),
      });
      const wake = detector(hot('-d', { d: heyJarvis(300) }));
      expectObservable(gate(events, wake, hot('c', { c: LISTENING }))).toBe('--gu-h', {
        g: 'tentative 1: 600 ms from 300',
        u: 'utterance 1: 700 ms from 300',
        h: 'kept 2 (guess)',
      });
    });
  });

  it('a wake word already heard goes on at once; without one, the gate waits for the detector to catch up', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('--u-v', { u: said(1, 0, 1000), v: said(2, 1200, 2000) });
      // Behind the microphone: it has scored the first utterance's wake word, and never the rest.
      const wake = detector(hot('-d', { d: heyJarvis(300) }), false, true);
      expectObservable(gate(events, wake, hot('c', { c: LISTENING }))).toBe('--u', {
        u: 'utterance 1: 700 ms from 300',
      });
    });
  });

  it('a detector that cannot hear lets every utterance through (the transcript decides)', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot('--u', { u: said(1, 0, 800) });
      expectObservable(gate(events, detector(NEVER, true), hot('c', { c: LISTENING }))).toBe('--u', {
        u: 'utterance 1: 800 ms from 0',
      });
    });
  });

  it('every other event passes as it came, in order', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const events = hot<ListenEvent>('-sdu|', {
        s: { type: 'silence', id: 1, silentMs: 30, atMs: 100 },
        d: { type: 'discarded', id: 2, onsetMs: 200, voicedMs: 40 },
        u: said(3, 0, 800),
      });
      expectObservable(gate(events, detector(NEVER), hot('c', { c: LISTENING }))).toBe('-sdk|', {
        s: 'silence',
        d: 'discarded',
        k: 'kept 3',
      });
    });
  });
});
