import { describe, expect, it } from 'vitest';
import { NEVER, concat, concatMap, timer, ignoreElements, of, type Observable } from 'rxjs';
import { prefetchAhead } from '../../../src/pipeline/prefetch-ahead.js';
import { testScheduler } from '../../helpers/marbles.js';

describe('prefetchAhead', () => {
  it('synthesizes the next item while the current one plays, keeping order', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const requests: Record<string, ReturnType<typeof cold<string>>> = {
        a: cold('--x|'),
        b: cold('--y|'),
        c: cold('--z|'),
        d: cold('--w|'),
      };
      const sentences = hot('-a-b-c-d-|');
      const played = sentences.pipe(
        prefetchAhead((s: string) => requests[s] as Observable<string>, 1),
        concatMap((p) => p.output),
      );
      expectObservable(played).toBe('---x-y-z-w|');
      expectSubscriptions(requests.a?.subscriptions ?? []).toBe('-^--!');
      expectSubscriptions(requests.b?.subscriptions ?? []).toBe('---^--!');
      expectSubscriptions(requests.d?.subscriptions ?? []).toBe('-------^--!');
    });
  });

  it('looks ahead no further than asked while playback is slow', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const requests = { a: cold('-x|'), b: cold('-x|'), c: cold('-x|'), d: cold('-x|') };
      const sentences = hot('-(abcd|)');
      // Each item takes 5 frames to "play" after its audio arrives.
      const played = sentences.pipe(
        prefetchAhead((s: string) => requests[s as keyof typeof requests], 1),
        concatMap((p) => concat(p.output, timer(5).pipe(ignoreElements()))),
      );
      expectObservable(played).toBe('--x-----x----x----x----|');
      // a and b at once; c only when b starts playing (frame 8), d when c does (frame 13).
      expectSubscriptions(requests.a.subscriptions).toBe('-^-!');
      expectSubscriptions(requests.b.subscriptions).toBe('-^-!');
      expectSubscriptions(requests.c.subscriptions).toBe('--------^-!');
      expectSubscriptions(requests.d.subscriptions).toBe('-------------^-!');
    });
  });

  it('unsubscribing cancels every request in flight, played or prefetched', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('----x|');
      const b = cold('------y|');
      const sentences = hot('-ab');
      const played = sentences.pipe(
        prefetchAhead((s: string) => (s === 'a' ? a : b), 2),
        concatMap((p) => p.output),
      );
      expectObservable(played, '----!').toBe('-');
      expectSubscriptions(a.subscriptions).toBe('-^--!');
      expectSubscriptions(b.subscriptions).toBe('--^-!');
    });
  });

  it('regression: the sentence stream ending does not cancel synthesis still under way', () => {
    // The reply finished streaming while the last sentences were still being synthesized;
    // completing the outer stream ran its teardown and closed those TTS connections, so
    // the end of every reply went missing and the turn never finished.
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('---x|');
      const b = cold('-----y|');
      const sentences = hot('-(ab|)');
      const played = sentences.pipe(
        prefetchAhead((s: string) => (s === 'a' ? a : b), 2),
        concatMap((p) => p.output),
      );
      expectObservable(played).toBe('----x-y|');
      expectSubscriptions(a.subscriptions).toBe('-^---!');
      expectSubscriptions(b.subscriptions).toBe('-^-----!');
    });
  });

  it('an error in a request reaches the consumer', () => {
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const sentences = hot('-a|');
      const played = sentences.pipe(
        prefetchAhead(() => cold('-#', {}, new Error('tts down')), 1),
        concatMap((p) => p.output),
      );
      expectObservable(played).toBe('--#', {}, new Error('tts down'));
    });
  });
});

describe('prefetchAhead window', () => {
  it('starts the first item at once even before anyone consumes it', () => {
    let started = 0;
    testScheduler().run(({ cold, hot, expectObservable }) => {
      const out = hot('-a').pipe(
        prefetchAhead(() => {
          started++;
          return cold('-x|');
        }, 1),
      );
      expectObservable(out.pipe(concatMap(() => []))).toBe('--');
    });
    expect(started).toBe(1);
  });
});

describe('prefetchAhead order', () => {
  it('starts the request for an item within the window before the consumer sees the item', () => {
    const seen: string[] = [];
    of('a', 'b')
      .pipe(
        prefetchAhead((item: string) => {
          seen.push(`request ${item}`);
          return NEVER;
        }, 1),
      )
      .subscribe(({ item }) => seen.push(`consumer gets ${item}`));
    expect(seen).toEqual(['request a', 'consumer gets a', 'consumer gets b']);
  });
});
