import { Subject, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ScoredFrame } from '../../../src/listen/speech-events.js';
import { keepPace } from '../../../src/pipeline/keep-pace.js';
import type { PaceEvent } from '../../../src/pipeline/events.js';
import type { WakeBacklog, WakeWordDetector } from '../../../src/pipeline/ports.js';

/** A frame scored at `scoredAt` that was captured `lagMs` before. */
function scored(frames: Subject<ScoredFrame>, clock: { now: number }, scoredAt: number, lagMs: number): void {
  clock.now = scoredAt;
  frames.next({ samples: new Int16Array(512), capturedAt: scoredAt - lagMs, probability: 0 });
}

/** keepPace over frames and a wake-word detector's backlog reports, on a clock the test moves. */
function paced() {
  const clock = { now: 0 };
  const frames = new Subject<ScoredFrame>();
  const backlog = new Subject<WakeBacklog>();
  const wake = { backlogMs: 0, backlog } as Pick<WakeWordDetector, 'backlogMs' | 'backlog'> as WakeWordDetector;
  const events = lastValueFrom(
    frames.pipe(
      keepPace(wake, () => clock.now),
      toArray(),
    ),
  );
  return { clock, frames, backlog, wake, events };
}

describe('keepPace: never silent about falling behind the microphone', () => {
  it('says when scoring falls more than a second behind, again every 10 s while it stays behind, and when it has caught up', async () => {
    const clock = { now: 0 };
    const frames = new Subject<ScoredFrame>();
    const events = lastValueFrom(
      frames.pipe(
        keepPace(undefined, () => clock.now),
        toArray(),
      ),
    );
    scored(frames, clock, 1000, 30);
    scored(frames, clock, 2000, 900);
    scored(frames, clock, 3000, 1600);
    scored(frames, clock, 8000, 5200);
    scored(frames, clock, 13_100, 3100);
    scored(frames, clock, 14_000, 600);
    scored(frames, clock, 15_000, 120);
    scored(frames, clock, 16_000, 2000);
    frames.complete();
    expect(await events).toEqual<PaceEvent[]>([
      { type: 'behind', lagMs: 1600, stage: 'speech' },
      { type: 'behind', lagMs: 3100, stage: 'speech' },
      { type: 'caught-up', behindMs: 12_000, worstLagMs: 5200 },
      { type: 'behind', lagMs: 2000, stage: 'speech' },
    ]);
  });

  it("counts the wake-word detector's backlog too, and passes on its changes of pace and what it dropped", async () => {
    const { clock, frames, backlog, wake, events } = paced();
    (wake as { backlogMs: number }).backlogMs = 7000;
    backlog.next({ pace: 'noisy', backlogMs: 7000, droppedMs: 0, atMs: 1000 });
    scored(frames, clock, 1000, 40);
    backlog.next({ pace: 'noisy', backlogMs: 30_000, droppedMs: 2500, atMs: 5000 });
    (wake as { backlogMs: number }).backlogMs = 100;
    scored(frames, clock, 9000, 40);
    backlog.next({ pace: 'full', backlogMs: 0, droppedMs: 2500, atMs: 30_000 });
    frames.complete();
    backlog.complete();
    expect(await events).toEqual<PaceEvent[]>([
      { type: 'wake-pace', pace: 'noisy', backlogMs: 7000 },
      { type: 'behind', lagMs: 7000, stage: 'wake word' },
      { type: 'dropped', droppedMs: 2500 },
      { type: 'caught-up', behindMs: 8000, worstLagMs: 7000 },
      { type: 'wake-pace', pace: 'full', backlogMs: 0 },
    ]);
  });

  it('ends with the frames, while the detector (closed only after) still reports', async () => {
    const frames = new Subject<ScoredFrame>();
    const backlog = new Subject<WakeBacklog>();
    const wake = { backlogMs: 0, backlog } as Pick<WakeWordDetector, 'backlogMs' | 'backlog'> as WakeWordDetector;
    let ended = false;
    frames.pipe(keepPace(wake, () => 0)).subscribe({ complete: () => (ended = true) });
    frames.complete();
    expect(ended).toBe(true);
    expect(backlog.observed).toBe(false);
  });

  it('says what the detector dropped once, then summed every 10 s, and the rest when the frames end', async () => {
    const { clock, frames, backlog, events } = paced();
    // A step dropped every 80 ms for 12 s: 150 reports.
    for (let step = 1; step <= 150; step++) {
      clock.now = step * 80;
      backlog.next({ pace: 'noisy', backlogMs: 30_000, droppedMs: step * 80, atMs: step * 80 });
    }
    frames.complete();
    const dropped = (await events).filter((e) => e.type === 'dropped');
    expect(dropped).toEqual<PaceEvent[]>([
      { type: 'dropped', droppedMs: 80 },
      { type: 'dropped', droppedMs: 10_000 },
      { type: 'dropped', droppedMs: 1920 },
    ]);
  });
});
