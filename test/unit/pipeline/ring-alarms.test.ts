import { describe, expect, it } from 'vitest';
import { NEVER, map, type Observable } from 'rxjs';
import type { ColdObservable } from 'rxjs/internal/testing/ColdObservable';
import type { GateEvent, InterruptionEvent, RingEvent, RingStop } from '../../../src/pipeline/events.js';
import type { Announcement } from '../../../src/pipeline/ports.js';
import { ringAlarms, ringStops, type RingDeps } from '../../../src/pipeline/ring-alarms.js';
import { FakePlayer, RecordingEarcons, pcm } from '../../helpers/fakes.js';
import { testScheduler } from '../../helpers/marbles.js';
import { transcript } from '../../helpers/turns.js';

const PASTA: Announcement = { id: 'pasta', text: 'Your pasta timer is done.' };
const TEA: Announcement = { id: 'tea', text: 'Your tea timer is done.' };

/**
 * A ring's surroundings at 1 kHz (a sample a frame): each announcement's speech is 5 ms of audio
 * that comes a frame after it is asked for; 4 frames of quiet between repeats.
 */
function ringing(
  now: () => number,
  streams: { announcements: Observable<Announcement>; idle: Observable<boolean>; stops: Observable<RingStop> },
  speech: (text: string) => ColdObservable<Buffer>,
) {
  const player = new FakePlayer(1000, now);
  const earcons = new RecordingEarcons();
  const sounding: boolean[] = [];
  const synthesized: string[] = [];
  const deps: RingDeps = {
    ...streams,
    maxMs: 40,
    repeatPauseMs: 4,
    sounding: (on) => sounding.push(on),
    synthesizer: {
      sampleRateHz: 1000,
      synthesize: (text) => {
        synthesized.push(text);
        return speech(text);
      },
    },
    player,
    earcons,
  };
  return { rings: ringAlarms(deps).pipe(map(describeRing)), player, earcons, sounding, synthesized };
}

const describeRing = (event: RingEvent): string =>
  event.phase === 'started' ? `rings ${event.ids.join('+')}` : `${event.ids.join('+')} stopped by ${event.by}`;

describe('ringAlarms', () => {
  it('rings while idle: the alarm and the announcement, again after each pause, until stopped; synthesized once', () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ cold, hot, expectObservable }) => {
      const r = ringing(
        () => scheduler.now(),
        {
          announcements: hot('--p', { p: PASTA }),
          idle: hot('t', { t: true }),
          stops: hot('-'.repeat(22) + 's', { s: 'stop' }),
        },
        () => cold('-x|', { x: pcm(5, 1000) }),
      );
      // Started at 2; the speech comes at 3 and plays to 8, quiet until 12; again 12-17, quiet
      // until 21, a third time from 21: stopped at 22.
      expectObservable(r.rings).toBe('--s-------------------x', { s: 'rings pasta', x: 'pasta stopped by stop' });
      return r;
    });
    expect(r.earcons.played).toEqual(['alarm', 'alarm', 'alarm']);
    expect(r.synthesized).toEqual([PASTA.text]);
    expect(r.player.writes).toHaveLength(3);
    expect(r.player.stops).toBe(1);
    expect(r.sounding).toEqual([true, false]);
  });

  it('an alarm due while hark is busy waits, and rings once hark is idle', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const r = ringing(
        () => scheduler.now(),
        { announcements: hot('--p', { p: PASTA }), idle: hot('f-----t', { f: false, t: true }), stops: NEVER },
        () => cold('-x|', { x: pcm(5, 1000) }),
      );
      expectObservable(r.rings, '^-------------!').toBe('------s', { s: 'rings pasta' });
    });
  });

  it('a ring nobody stops ends after its longest time', () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ cold, hot, expectObservable }) => {
      const r = ringing(
        () => scheduler.now(),
        { announcements: hot('--p', { p: PASTA }), idle: hot('t', { t: true }), stops: NEVER },
        () => cold('-x|', { x: pcm(5, 1000) }),
      );
      expectObservable(r.rings).toBe('--s 39ms x', { s: 'rings pasta', x: 'pasta stopped by timeout' });
      return r;
    });
    expect(r.player.stops).toBe(1);
    expect(r.sounding).toEqual([true, false]);
  });

  it('an alarm falling due while another rings joins it: announced together from the next repeat, stopped together', () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ cold, hot, expectObservable }) => {
      const r = ringing(
        () => scheduler.now(),
        {
          announcements: hot('--p----t', { p: PASTA, t: TEA }),
          idle: hot('t', { t: true }),
          stops: hot('-'.repeat(22) + 's', { s: 'stop' }),
        },
        () => cold('-x|', { x: pcm(5, 1000) }),
      );
      expectObservable(r.rings).toBe('--s-------------------x', {
        s: 'rings pasta',
        x: 'pasta+tea stopped by stop',
      });
      return r;
    });
    expect(r.synthesized).toEqual([PASTA.text, `${PASTA.text} ${TEA.text}`]);
  });

  it('alarms falling due together while idle are announced together from the first time', () => {
    const scheduler = testScheduler();
    const r = scheduler.run(({ cold, hot, expectObservable }) => {
      const r = ringing(
        () => scheduler.now(),
        { announcements: hot('--(pt)', { p: PASTA, t: TEA }), idle: hot('t', { t: true }), stops: NEVER },
        () => cold('-x|', { x: pcm(5, 1000) }),
      );
      expectObservable(r.rings, '^----!').toBe('--s', { s: 'rings pasta+tea' });
      return r;
    });
    expect(r.synthesized).toEqual([`${PASTA.text} ${TEA.text}`]);
  });

  it('a ringing alarm stops when the user talks over it, not when the speech only paused it', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, hot, expectObservable }) => {
      const speech = (phase: InterruptionEvent['phase']): InterruptionEvent => ({
        type: 'interruption',
        phase,
        atMs: undefined,
        utteranceId: 1,
      });
      const interruptions = hot('-----p---c', { p: speech('paused'), c: speech('confirmed') });
      const r = ringing(
        () => scheduler.now(),
        {
          announcements: hot('--p', { p: PASTA }),
          idle: hot('t', { t: true }),
          stops: ringStops(NEVER, interruptions, NEVER),
        },
        () => cold('-x|', { x: pcm(5, 1000) }),
      );
      expectObservable(r.rings).toBe('--s------x', { s: 'rings pasta', x: 'pasta stopped by speech' });
    });
  });
});

describe('ringStops', () => {
  it('a stop phrase, the wake word, a confirmed query, the user talking, the stop button and the end each stop a ring', () => {
    testScheduler().run(({ hot, expectObservable }) => {
      const said = transcript('stop');
      const verdicts = hot<GateEvent>('-swgqi', {
        s: { type: 'stop', transcript: said },
        w: { type: 'wake', phrase: 'hey_jarvis' },
        g: { type: 'query', query: { text: 'and', transcript: { ...said, tentative: true } } },
        q: { type: 'query', query: { text: 'what time is it', transcript: said } },
        i: { type: 'ignored', reason: 'no wake phrase', transcript: said },
      });
      const interruption = (phase: InterruptionEvent['phase']): InterruptionEvent => ({
        type: 'interruption',
        phase,
        atMs: 1,
        utteranceId: 1,
      });
      const interruptions = hot('------pc', { p: interruption('paused'), c: interruption('confirmed') });
      const stops = ringStops(verdicts, interruptions, hot('---------e'), hot('--------b'));
      // A guess at a pause, an ignored transcript and speech that only paused the ring stop nothing.
      expectObservable(stops).toBe('-sw-q--cbe', {
        s: 'stop',
        w: 'wake',
        q: 'query',
        c: 'speech',
        b: 'control',
        e: 'shutdown',
      });
    });
  });
});
