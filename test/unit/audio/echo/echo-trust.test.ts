import { describe, expect, it } from 'vitest';
import { EchoTrust } from '../../../../src/audio/echo/echo-trust.js';

const FRAME_MS = 16;
/** Mean power of a frame at `dbfs`. */
const power = (dbfs: number) => 32768 * 32768 * 10 ** (dbfs / 10);

/** `frames` frames of hark's voice at -26 dBFS heard 20 dB down, the filter taking out `erleDb`. */
function play(trust: EchoTrust, frames: number, erleDb: number) {
  let verdict = trust.idle();
  for (let i = 0; i < frames; i++) {
    verdict = trust.cancelled(power(-46), power(-26), power(-46 - erleDb), erleDb);
  }
  return verdict;
}

/** Nothing played for `ms`: the player paused. */
function pause(trust: EchoTrust, ms: number) {
  let verdict = trust.idle();
  for (let i = 0; i < ms / FRAME_MS; i++) verdict = trust.idle();
  return verdict;
}

/** `frames` frames heard at `micDb` while hark plays at -26 dBFS, the filter leaving `outDb`. */
function hear(trust: EchoTrust, frames: number, micDb: number, outDb: number) {
  let verdict = trust.cancelled(power(micDb), power(-26), power(outDb), 30);
  for (let i = 1; i < frames; i++) verdict = trust.cancelled(power(micDb), power(-26), power(outDb), 30);
  return verdict;
}

describe('EchoTrust', () => {
  it('trusts the filter only after about a second of sound at a good echo return loss enhancement', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    expect(play(trust, 30, 30).trusted).toBe(false);
    expect(play(trust, 30, 30).trusted).toBe(true);
  });

  it('does not trust a filter on the strength of a smoothed estimate while the frames themselves are poorly cancelled', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    // Replies whose echo was lost in the noise kept the smoothed estimate high; now a loud echo
    // arrives and the filter takes out 4 dB of it.
    let verdict = trust.idle();
    for (let i = 0; i < 80; i++) verdict = trust.cancelled(power(-30), power(-26), power(-34), 20);
    expect(verdict.trusted).toBe(false);
  });

  it('after a pause, judges the filter by its loud frames: quiet ones silenced between words do not vouch for it', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 80, 30);
    for (let i = 0; i < 300 / FRAME_MS; i++) trust.idle();
    let verdict = trust.idle();
    for (let i = 0; i < 24; i++) {
      // Words the filter takes 2 dB out of, and the quiet between them that the suppressor silences.
      verdict =
        i % 2 === 0
          ? trust.cancelled(power(-20), power(-16), power(-22), 30)
          : trust.cancelled(power(-50), power(-46), power(-90), 30);
      if (i % 3 === 0) verdict = trust.cancelled(power(-50), power(-46), power(-90), 30);
    }
    expect(verdict.trusted).toBe(false);
  });

  it('measures how far below the echo the filter leaves hark, on frames of echo alone: a talker over hark does not lower it', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    expect(play(trust, 30, 26).lossDb).toBeNull();
    expect(play(trust, 60, 26).lossDb).toBeCloseTo(26, 0);
    // The user, 10 dB over the echo, for a second: what the filter leaves is their voice.
    let verdict = trust.idle();
    for (let i = 0; i < 60; i++) verdict = trust.cancelled(power(-36), power(-26), power(-36.5), 26);
    expect(verdict.lossDb).toBeCloseTo(26, 0);
  });

  it('does not trust a filter that cancels poorly, however long it ran', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    expect(play(trust, 300, 8).trusted).toBe(false);
  });

  it('predicts the echo from what was played and the measured loss of the path, once measured', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    expect(play(trust, 10, 30).predictedDbfs).toBeNull();
    expect(play(trust, 30, 30).predictedDbfs).toBeCloseTo(-46, 1);
    // Nothing played: nothing can echo.
    expect(trust.idle()).toMatchObject({ possible: false, predictedDbfs: -120 });
    // Still within the filter's reach, but nothing audible played for longer than the echo lasts.
    let verdict = trust.cancelled(power(-46), power(-26), power(-76), 30);
    expect(verdict.predictedDbfs).toBeCloseTo(-46, 1);
    for (let i = 0; i < (20 + 100) / FRAME_MS + 1; i++) verdict = trust.cancelled(power(-80), 0, power(-80), 30);
    expect(verdict).toMatchObject({ possible: true, predictedDbfs: -120 });
  });

  it('after a silence, trusts the filter again only once it cancels as well as before', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 80, 30);
    for (let i = 0; i < 1000 / FRAME_MS + 1; i++) trust.idle();
    // The path drifted during the silence: the filter now cancels only 5 dB.
    expect(play(trust, 20, 5).trusted).toBe(false);
    expect(play(trust, 20, 30).trusted).toBe(true);
  });

  it('after a pause of a fraction of a second (the player restarts its stream, with another latency), checks the filter again', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 80, 30);
    for (let i = 0; i < 300 / FRAME_MS; i++) trust.idle();
    // The new stream sounds later than the old one did: the filter, still aligned to the old delay, cancels 6 dB.
    const verdict = trust.cancelled(power(-26), power(-26), power(-32), 30);
    expect(verdict.trusted).toBe(false);
    expect(play(trust, 20, 30).trusted).toBe(true);
  });

  it('when the player starts a new stream with no pause between (the next sentence after it ran dry), checks the filter again', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    expect(play(trust, 80, 30).trusted).toBe(true);
    trust.streamRestarted();
    // The new stream sounds 28 ms earlier than the last did (a player restarted on a resume had
    // sounded that much late): the filter, aligned to the old delay, takes 6 dB out.
    expect(trust.cancelled(power(-26), power(-26), power(-32), 30).trusted).toBe(false);
    expect(play(trust, 20, 30).trusted).toBe(true);
  });

  it('after a pause, a quiet stretch cancelled well does not vouch for a filter that takes 10 dB out of the words', () => {
    // Seen through a real sound server: the echo path changed while the reply was paused, the
    // filter took 10 dB out of the next reply's first words, then a quiet stretch, which the
    // suppressor silenced, passed the check; the louder words after it came through as speech.
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 80, 30);
    pause(trust, 300);
    let verdict = hear(trust, 12, -30, -40);
    for (let i = 0; i < 12; i++) verdict = trust.cancelled(power(-45), power(-41), power(-65), 30);
    expect(verdict.trusted).toBe(false);
    // Words, cancelled as well as before the pause.
    expect(hear(trust, 12, -30, -50).trusted).toBe(true);
  });

  it('after a pause, does not trust a filter whose echo path changed under it, until it has caught up', () => {
    // Seen through a real sound server whose loopback had been replaced: the converged filter
    // took 6 dB out of hark's voice for a second, a pause, then the next reply's first words
    // were silenced by the suppressor and passed the check; what was left of hark's voice came
    // through as the user's speech and was transcribed into a turn.
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 80, 30);
    play(trust, 60, 6);
    pause(trust, 300);
    expect(hear(trust, 12, -46, -76).trusted).toBe(false);
    // A second of hark's voice cancelled as well as before: the filter has caught up.
    expect(hear(trust, 60, -46, -76).trusted).toBe(true);
  });

  it('stops trusting a filter that cancels hark words poorly for seconds on end, but not for the user talking over hark', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 120, 30);
    // The user, as loud as the echo, over hark's words for 600 ms: what the filter leaves is their voice.
    pause(trust, 0);
    hear(trust, 60, -46, -76);
    expect(hear(trust, 600 / FRAME_MS, -43, -47).trusted).toBe(true);
    // The echo path changes under the filter in mid-reply: it takes 6 dB out of hark's words.
    const changed = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(changed, 120, 30);
    expect(hear(changed, 500 / FRAME_MS, -46, -52).trusted).toBe(true);
    expect(hear(changed, 1000 / FRAME_MS, -46, -52).trusted).toBe(false);
    // Once it has caught up, it is trusted again.
    expect(hear(changed, 2000 / FRAME_MS, -46, -76).trusted).toBe(true);
  });

  it("stops trusting at once a filter the echo path slipped away from (it takes next to nothing out of hark's words), not a frame early", () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    expect(play(trust, 80, 30).trusted).toBe(true);
    // Now and then a frame the filter takes little out of: it still fits.
    for (let i = 0; i < 6; i++) expect(hear(trust, 1, -46, i % 2 === 0 ? -46 : -76).trusted).toBe(true);
    // The user as loud again as the echo, for a second: the filter takes their voice out of nothing.
    expect(hear(trust, 60, -36, -36.5).trusted).toBe(true);
    expect(hear(trust, 6, -46, -76).trusted).toBe(true);
    // The sound server ran dry and plays on later: what the filter takes out is no longer there.
    expect(hear(trust, 3, -46, -45.5).trusted).toBe(true);
    expect(hear(trust, 1, -46, -45.5).trusted).toBe(false);
    expect(hear(trust, 10, -46, -76).trusted).toBe(false);
    // Once it cancels hark's words well again, it is trusted again.
    expect(play(trust, 20, 30).trusted).toBe(true);
  });

  it("knows what a filter it does not trust takes out of hark's words: more than half of the last 16 frames of the player's stream", () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    // A filter that takes only 8 dB out (a sound server's loopback under load) is never trusted;
    // what it takes out is known all the same, up to 6 dB.
    let verdict = play(trust, 120, 8);
    expect(verdict).toMatchObject({ trusted: false, takenDb: 6 });
    // Seven frames of 10 dB and nine of 1.5 dB: more than half took out only 1.5 dB.
    for (let i = 0; i < 7; i++) verdict = trust.cancelled(power(-46), power(-26), power(-56), 8);
    for (let i = 0; i < 9; i++) verdict = trust.cancelled(power(-46), power(-26), power(-47.5), 8);
    expect(verdict.takenDb).toBeCloseTo(1.5, 1);
    // A new stream after a pause (the reply resumed, with perhaps another latency): nothing known until 16 frames of it.
    verdict = play(trust, 15, 8);
    expect(verdict.takenDb).toBe(0);
    verdict = trust.cancelled(power(-46), power(-26), power(-54), 8);
    expect(verdict.takenDb).toBe(6);
    // Most of the last frames of words came through untouched: the echo path moved.
    for (let i = 0; i < 4; i++) verdict = trust.cancelled(power(-46), power(-26), power(-46), 8);
    expect(verdict.takenDb).toBe(0);
  });

  it('the user talking over hark does not make the echo seem as loud as the user', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 60, 0);
    // A third of a second of the user at -30 dBFS over hark's echo at -46 dBFS.
    let verdict = trust.idle();
    for (let i = 0; i < 20; i++) verdict = trust.cancelled(power(-30) + power(-46), power(-26), power(-30), 0);
    // Still predicted near the echo, so the user stays more than 6 dB above it.
    expect(verdict.predictedDbfs).toBeLessThan(-40);
  });

  it("a talker far louder than an echo lost in the noise does not make the filter seem converged (the suppressor took out the talker's onset)", () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    // hark's echo lies under the room's noise, which the suppressor lowers by 12 dB.
    let verdict = trust.idle();
    for (let i = 0; i < 80; i++) verdict = trust.cancelled(power(-70), power(-26), power(-82), 10);
    expect(verdict.trusted).toBe(false);
    // The user at -26 dBFS, their first words taken out by 40 dB.
    for (let i = 0; i < 6; i++) verdict = trust.cancelled(power(-26), power(-26), power(-66), 20);
    expect(verdict.trusted).toBe(false);
  });

  it('an echo path grown louder is still learned, in a few seconds', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 60, 0);
    let verdict = trust.idle();
    for (let i = 0; i < 300; i++) verdict = trust.cancelled(power(-36), power(-26), power(-36), 0);
    expect(verdict.predictedDbfs).toBeGreaterThan(-38);
  });

  it('with next to nothing of hark heard at the microphone, a talker far over the echo predicted is not learned as the echo', () => {
    // hark's echo under the room's noise (-70 dBFS); the delay estimator's correlation at the
    // tracked delay tells how much of the microphone's sound is hark's: next to none, or a lot.
    const talkOver = (coherence: number) => {
      const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
      let verdict = trust.idle();
      for (let i = 0; i < 60; i++) verdict = trust.cancelled(power(-70), power(-26), power(-70), 0, coherence);
      // Five seconds of the user at -26 dBFS over hark.
      for (let i = 0; i < 300; i++) verdict = trust.cancelled(power(-26), power(-26), power(-26), 0, coherence);
      return verdict.predictedDbfs ?? NaN;
    };
    expect(talkOver(0.02)).toBeLessThan(-65);
    // An echo turned up that loud correlates with what hark plays: it is learned as before.
    expect(talkOver(0.3)).toBeGreaterThan(-40);
  });

  it('starts over after a re-alignment', () => {
    const trust = new EchoTrust({ frameMs: FRAME_MS, leadMs: 20 });
    play(trust, 80, 30);
    trust.restart();
    expect(play(trust, 10, 30).trusted).toBe(false);
  });
});
