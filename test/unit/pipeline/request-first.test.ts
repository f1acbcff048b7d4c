import { describe, expect, it } from 'vitest';
import { Subject, defer, finalize, map, type Observable } from 'rxjs';
import { requestFirst } from '../../../src/pipeline/request-first.js';

/** An event loop's check phase, run by hand. */
function laterQueue(): { afterIo: (work: () => void) => () => void; run(): void } {
  const queued = new Set<() => void>();
  return {
    afterIo: (work) => {
      queued.add(work);
      return () => queued.delete(work);
    },
    run: () => {
      for (const work of [...queued]) {
        queued.delete(work);
        work();
      }
    },
  };
}

/** A request that records when it was asked and let go. */
function recordedRequest(log: string[]): { request: Observable<string>; answer: Subject<string> } {
  const answer = new Subject<string>();
  const request = defer(() => {
    log.push('asked');
    return answer.pipe(finalize(() => log.push('let go')));
  });
  return { request, answer };
}

describe('requestFirst', () => {
  it('asks at once and builds the stages that read the answer afterwards, losing nothing that came between', () => {
    const log: string[] = [];
    const later = laterQueue();
    const { request, answer } = recordedRequest(log);
    const received: string[] = [];
    const stages = (events: Observable<string>): Observable<string> => {
      log.push('built');
      return events.pipe(map((text) => text.toUpperCase()));
    };

    requestFirst(request, stages, later.afterIo).subscribe({
      next: (text) => received.push(text),
      complete: () => log.push('done'),
    });
    answer.next('first words');
    expect(log).toEqual(['asked']);

    later.run();
    answer.next('the rest');
    answer.complete();
    expect(received).toEqual(['FIRST WORDS', 'THE REST']);
    expect(log.slice(0, 2)).toEqual(['asked', 'built']);
    expect(log).toContain('done');
  });

  it('lets the request go when the turn is cut before its stages were built, and never builds them', () => {
    const log: string[] = [];
    const later = laterQueue();
    const { request } = recordedRequest(log);
    const turn = requestFirst(
      request,
      (events) => {
        log.push('built');
        return events;
      },
      later.afterIo,
    ).subscribe();

    turn.unsubscribe();
    later.run();
    expect(log).toEqual(['asked', 'let go']);
  });

  it('lets the request go when the turn is cut while it plays', () => {
    const log: string[] = [];
    const later = laterQueue();
    const { request, answer } = recordedRequest(log);
    const received: string[] = [];
    const turn = requestFirst(request, (events) => events, later.afterIo).subscribe((text) => received.push(text));
    later.run();
    answer.next('one');
    turn.unsubscribe();
    answer.next('two');
    expect(received).toEqual(['one']);
    expect(log).toEqual(['asked', 'let go']);
  });

  it('hands on a failure that came before the stages were built', () => {
    const later = laterQueue();
    const { request, answer } = recordedRequest([]);
    const failures: unknown[] = [];
    requestFirst(request, (events) => events, later.afterIo).subscribe({ error: (error) => failures.push(error) });
    answer.error(new Error('service unavailable'));
    expect(failures).toEqual([]);
    later.run();
    expect(failures).toEqual([new Error('service unavailable')]);
  });

  it('a stage that fails to be built fails the turn, and lets the request go', () => {
    const log: string[] = [];
    const later = laterQueue();
    const { request } = recordedRequest(log);
    const failures: unknown[] = [];
    requestFirst(
      request,
      () => {
        throw new Error('no player');
      },
      later.afterIo,
    ).subscribe({ error: (error) => failures.push(error) });
    later.run();
    expect(failures).toEqual([new Error('no player')]);
    expect(log).toEqual(['asked', 'let go']);
  });
});
