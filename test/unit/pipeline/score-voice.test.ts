import { describe, expect, it } from 'vitest';
import { from, lastValueFrom, map, toArray } from 'rxjs';
import type { Frame } from '../../../src/audio/frames.js';
import type { Vad } from '../../../src/pipeline/ports.js';
import { scoreVoice } from '../../../src/pipeline/score-voice.js';
import { silentLogger } from '../../../src/system/logger.js';
import { testScheduler } from '../../helpers/marbles.js';

const OPTIONS = { fallbackGateDbfs: -50, ownVoiceBelowDb: 12 };

/** A model that hears speech in every frame it is given. */
const SPEECH: Vad = {
  name: 'silero',
  frameSamples: 512,
  probability: () => 0.95,
  reset: () => undefined,
  close: async () => undefined,
};

/** 512 samples of a square wave at `levelDbfs`. */
const tone = (levelDbfs: number) =>
  new Int16Array(512).map((_, i) => (i % 2 ? 1 : -1) * Math.round(32768 * 10 ** (levelDbfs / 20)));

/** The probabilities SPEECH gives `frames` after the own-voice judgement. */
async function probabilities(frames: Frame[]) {
  const scored = await lastValueFrom(from(frames).pipe(scoreVoice(SPEECH, silentLogger, OPTIONS), toArray()));
  return scored.map((s) => s.probability);
}

describe('scoreVoice', () => {
  it('scores frames in order with a synchronous VAD, and unsubscribes upstream when cancelled', () => {
    const vad: Vad = {
      name: 'energy',
      frameSamples: 2,
      probability: (f) => ((f[0] as number) > 0 ? 0.9 : 0.1),
      reset: () => undefined,
      close: async () => undefined,
    };
    testScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-a-b-a', {
        a: { samples: Int16Array.of(5, 5), capturedAt: 0 },
        b: { samples: Int16Array.of(0, 0), capturedAt: 0 },
      });
      const scored = source.pipe(
        scoreVoice(vad, silentLogger, OPTIONS),
        map((f) => f.probability),
      );
      expectObservable(scored, '^----!').toBe('-x-y-', { x: 0.9, y: 0.1 });
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('falls back to the energy VAD when the model fails, and keeps scoring', async () => {
    const vad: Vad = {
      name: 'silero',
      frameSamples: 512,
      probability: () => Promise.reject(new Error('onnx session lost')),
      reset: () => undefined,
      close: async () => undefined,
    };
    const loud = { samples: new Int16Array(512).map((_, i) => (i % 2 ? 12000 : -12000)), capturedAt: 32 };
    const quiet = { samples: new Int16Array(512), capturedAt: 64 };
    const scored = await lastValueFrom(from([loud, quiet]).pipe(scoreVoice(vad, silentLogger, OPTIONS), toArray()));
    expect(scored.map((s) => s.probability)).toEqual([1, 0]);
  });

  it("scores what is left of hark's own voice after echo cancellation as no speech at all", async () => {
    const residual = (levelDbfs: number, echoDbfs: number) => ({ samples: tone(levelDbfs), capturedAt: 32, echoDbfs });
    // 25 dB below the echo taken out: hark's voice left over. 5 dB below: the user over hark. No echo: the user.
    expect(await probabilities([residual(-55, -30), residual(-35, -30), residual(-55, -120)])).toEqual([0, 0.95, 0.95]);
  });

  it('with the canceller measured to leave 26 dB less of the echo, a talker 15 dB under hark is heard, its residual is not', async () => {
    const frame = (levelDbfs: number, echoLossDb: number | null) => ({
      samples: tone(levelDbfs),
      capturedAt: 32,
      echoDbfs: -22,
      echoTrusted: true,
      echoLossDb,
    });
    // 15 dB under the echo taken out, 11 dB over what the canceller leaves of it: the user.
    // 23 dB under: within 6 dB of the residual, hark's own voice. Loss unmeasured: 12 dB is the mark.
    // A canceller that takes only 9 dB out (seen through a real sound server) leaves hark's voice
    // 7 dB under the echo: still hark's own, within 6 dB of that residual.
    expect(
      await probabilities([frame(-37, 26), frame(-45, 26), frame(-37, null), frame(-37, 8), frame(-29, 9)]),
    ).toEqual([0.95, 0, 0, 0, 0]);
  });

  it("before the canceller has converged, judges hark's echo by what was played: only speech well above it is the user's", async () => {
    const untrusted = (levelDbfs: number, predictedDbfs: number | null) => ({
      samples: tone(levelDbfs),
      capturedAt: 32,
      // What the unconverged filter took out says nothing: here it is as loud as what it left.
      echoDbfs: levelDbfs,
      echoTrusted: false,
      echoPredictedDbfs: predictedDbfs,
    });
    const scored = await lastValueFrom(
      from([untrusted(-30, -28), untrusted(-20, -28), untrusted(-30, null), untrusted(-30, -120)]).pipe(
        scoreVoice(SPEECH, silentLogger, OPTIONS),
        toArray(),
      ),
    );
    // As loud as the echo may be: hark. 8 dB above it: the user, or an echo path grown louder
    // than measured (doubtful until hark's voice stops). Echo level not known yet: hark.
    // Nothing played that could echo: the user.
    expect(scored.map((s) => s.probability)).toEqual([0, 0.95, 0, 0.95]);
    expect(scored.map((s) => s.doubtful ?? false)).toEqual([false, true, false, false]);
  });

  it('before the canceller has converged, what it is known to take out lets a talker through once louder than the loudest echo, but not as speech that counts', async () => {
    const untrusted = (levelDbfs: number, takenDb: number) => ({
      samples: tone(levelDbfs),
      capturedAt: 32,
      echoDbfs: levelDbfs,
      echoTrusted: false,
      echoPredictedDbfs: -28,
      echoTakenDb: takenDb,
    });
    const scored = await lastValueFrom(
      from([untrusted(-27, 6), untrusted(-27, 0), untrusted(-31, 6), untrusted(-20, 6)]).pipe(
        scoreVoice(SPEECH, silentLogger, OPTIONS),
        toArray(),
      ),
    );
    // Just over the loudest echo, with 6 dB known to be taken out: faint (it may pause a reply,
    // it never counts). With nothing known to be taken out, or under the loudest echo: hark.
    // 8 dB over it: doubtful, as before.
    expect(scored.map((s) => s.probability)).toEqual([0.95, 0, 0, 0.95]);
    expect(scored.map((s) => (s.faint ? 'faint' : s.doubtful ? 'doubtful' : '-'))).toEqual([
      'faint',
      '-',
      '-',
      'doubtful',
    ]);
  });

  it('before the canceller has converged, a talker no louder than the echo is heard where the bands show sound the echo cannot explain', async () => {
    const untrusted = (beyondDb: number | null) => ({
      samples: tone(-30),
      capturedAt: 32,
      echoDbfs: -30,
      echoTrusted: false,
      echoPredictedDbfs: -28,
      echoBeyondDb: beyondDb,
    });
    const scored = await lastValueFrom(
      from([untrusted(-6), untrusted(-40), untrusted(null)]).pipe(scoreVoice(SPEECH, silentLogger, OPTIONS), toArray()),
    );
    // Sound beyond the echo band by band: the user, faint (it may pause a reply, it never counts)
    // while hark's voice may still reach the microphone. Nothing beyond it, or the bands not
    // known yet: hark, as its level says.
    expect(scored.map((s) => s.probability)).toEqual([0.95, 0, 0]);
    expect(scored.map((s) => (s.faint ? 'faint' : s.doubtful ? 'doubtful' : '-'))).toEqual(['faint', '-', '-']);
  });

  it("gives the model silence for hark's own voice, so its state never learns hark's voice", async () => {
    const heard: number[] = [];
    const vad: Vad = {
      name: 'silero',
      frameSamples: 512,
      probability: (frame) => {
        heard.push(Math.max(...frame));
        return 0.9;
      },
      reset: () => undefined,
      close: async () => undefined,
    };
    const frame = (levelDbfs: number, echoDbfs: number) => ({
      samples: new Int16Array(512).fill(Math.round(32768 * 10 ** (levelDbfs / 20))),
      capturedAt: 32,
      echoDbfs,
      echoTrusted: true,
      echoPredictedDbfs: echoDbfs,
    });
    await lastValueFrom(
      from([frame(-55, -30), frame(-30, -30)]).pipe(scoreVoice(vad, silentLogger, OPTIONS), toArray()),
    );
    expect(heard).toEqual([0, Math.round(32768 * 10 ** (-30 / 20))]);
  });
});
