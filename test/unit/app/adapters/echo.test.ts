import { describe, expect, it } from 'vitest';
import { watchEcho } from '../../../../src/app/adapters/echo.js';
import type { EchoState, EchoVerdict } from '../../../../src/pipeline/ports.js';
import { watchedLogger } from '../../../helpers/logger.js';

/** A canceller whose verdicts, re-alignments and steps follow a script, one entry per frame. */
function scripted(frames: { possible: boolean; trusted: boolean; realignments?: number; steps?: number }[]) {
  let index = -1;
  const current = () => frames[Math.max(0, index)] as (typeof frames)[number];
  return {
    frameSamples: 256,
    passes: () => false,
    cancel: (mic: Int16Array) => {
      index++;
      return mic;
    },
    lastVerdict: (): EchoVerdict => ({
      possible: current().possible,
      trusted: current().trusted,
      predictedDbfs: -40,
      lossDb: current().trusted ? 18.44 : null,
      takenDb: 0,
      beyondDb: null,
    }),
    state: (): EchoState => ({
      active: current().possible,
      delayMs: 66.6,
      delayConfidence: 0.9,
      coherence: 0.3,
      erleDb: 21.27,
      adapted: true,
      micDbfs: -30,
      outDbfs: -50,
      echoDbfs: -30,
    }),
    get realignments() {
      return current().realignments ?? 0;
    },
    get steps() {
      return current().steps ?? 0;
    },
  };
}

describe('watchEcho', () => {
  it('logs each change of trust in the canceller, each re-alignment and each step, once, with what it knew', () => {
    const logger = watchedLogger();
    const echo = watchEcho(
      scripted([
        { possible: false, trusted: false },
        { possible: true, trusted: false },
        { possible: true, trusted: true },
        { possible: true, trusted: true },
        // Nothing played: what the trust says there is not a change of the canceller's.
        { possible: false, trusted: false },
        { possible: true, trusted: false, realignments: 1 },
        { possible: true, trusted: false, realignments: 1 },
        { possible: true, trusted: false, realignments: 1, steps: 1 },
        { possible: true, trusted: false, realignments: 1, steps: 1 },
      ]),
      logger,
    );
    const mic = new Int16Array(256);
    for (let i = 0; i < 9; i++) expect(echo.cancel(mic, i * 16)).toBe(mic);
    expect(
      logger.lines
        .filter(({ event }) => event !== 'echo.state')
        .map(({ event, trusted, lossDb, realignments }) => ({ event, trusted, lossDb, realignments })),
    ).toEqual([
      { event: 'echo.trust', trusted: true, lossDb: 18.4, realignments: undefined },
      { event: 'echo.trust', trusted: false, lossDb: null, realignments: undefined },
      { event: 'echo.realigned', trusted: undefined, lossDb: undefined, realignments: 1 },
      { event: 'echo.stepped', trusted: undefined, lossDb: undefined, realignments: undefined },
    ]);
    expect(logger.lines.find((line) => line.event === 'echo.stepped')).toMatchObject({ delayMs: 66.6, steps: 1 });
    expect(logger.lines.find((line) => line.event === 'echo.trust')).toMatchObject({ delayMs: 67, erleDb: 21.3 });
  });

  it("logs how well it cancels once a second while hark's voice may reach the microphone, and not while nothing played", () => {
    const logger = watchedLogger();
    // 3 s of frames of 16 ms: hark speaking for 2 s, then silent for 1 s.
    const frames = Array.from({ length: 188 }, (_, i) => ({ possible: i < 125, trusted: true }));
    const echo = watchEcho(scripted(frames), logger);
    const mic = new Int16Array(256);
    frames.forEach((_, i) => echo.cancel(mic, i * 16));
    const states = logger.lines.filter((line) => line.event === 'echo.state');
    expect(states).toHaveLength(2);
    expect(states[0]).toMatchObject({
      trusted: true,
      lossDb: 18.4,
      erleDb: 21.3,
      delayMs: 67,
      micDbfs: -30,
      outDbfs: -50,
    });
  });
});
