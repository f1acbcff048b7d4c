/**
 * hark through a real sound server: the recording is played into a virtual microphone and
 * captured by the real recorder (node-record-lpcm16 with arecord, through ALSA's pulse
 * plugin); hark answers through the stand-in service and plays through the player it chooses
 * for a machine with a sound server (pacat; HARK_TEST_PLAYER=speaker plays with the `speaker`
 * package when it is installed); the virtual speaker's monitor is recorded. The reply must be the stand-in's
 * speech, and speech played during the reply must stop the real playback.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderSpeech } from '../../src/sim/voice.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { HARK } from '../helpers/cli.js';
import {
  MIX_RATE,
  envelope,
  feedBack,
  play,
  readMix,
  recordMix,
  startSoundServer,
  type SoundServer,
} from '../helpers/pulse.js';
import { UTTERANCE, cleanUtteranceWav } from '../helpers/speech.js';
import { correlationAt } from '../helpers/audio.js';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SPEECH = 1200;
const VOICE = 300;

let server: SoundServer;
let sim: SimServer;
let hark: ChildProcess;
let mix: { path: string; stop(): Promise<void> };
let interruption: string;
const events: Record<string, unknown>[] = [];

/** Resolves with the next log line of hark's with this event name. */
function nextEvent(event: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  return nextEventWhere((e) => e.event === event, timeoutMs, event);
}

function nextEventWhere(
  matches: (e: Record<string, unknown>) => boolean,
  timeoutMs = 30_000,
  event = 'the awaited event',
): Promise<Record<string, unknown>> {
  const seen = events.length;
  const awaited = new Promise<Record<string, unknown>>((resolve, reject) => {
    const started = Date.now();
    const poll = setInterval(() => {
      const match = events.slice(seen).find(matches);
      if (match) {
        clearInterval(poll);
        resolve(match);
      } else if (Date.now() - started > timeoutMs) {
        clearInterval(poll);
        reject(
          new Error(
            `no ${event} within ${timeoutMs} ms; last events: ${events
              .slice(-5)
              .map((e) => e.event)
              .join(', ')}`,
          ),
        );
      }
    }, 20);
  });
  // A test awaits some of these after others: should it fail first, the rest must not outlive it as unhandled rejections.
  awaited.catch(() => undefined);
  return awaited;
}

/** What hark heard and decided, to tell on a failure in CI why it did what it did. */
function printLastEvents(): void {
  console.log(
    `hark's last events:\n${events
      .slice(-80)
      .map((e) => JSON.stringify(e))
      .join('\n')}`,
  );
}

/**
 * How much of `signal` near `onset` is `reference`: the reference is aligned as a whole, then
 * each 250 ms piece is aligned again within 20 ms (the sound server's resamplers drift a
 * little) and the median of the pieces' correlations is returned.
 */
function matchedCorrelation(signal: Int16Array, reference: Int16Array, onset: number): number {
  let global = 0;
  let best = -1;
  for (let lag = Math.max(0, onset - MIX_RATE * 0.3); lag < onset + MIX_RATE * 0.3; lag += 4) {
    const score = correlationAt(signal, reference, lag);
    if (score > best) [best, global] = [score, lag];
  }
  const piece = MIX_RATE / 4;
  const scores: number[] = [];
  for (let from = 0; from + piece <= reference.length; from += piece) {
    let energy = 0;
    for (let i = from; i < from + piece; i++) energy += (reference[i] as number) ** 2;
    if (Math.sqrt(energy / piece) < VOICE) continue;
    let pieceBest = -1;
    for (let shift = -MIX_RATE * 0.02; shift <= MIX_RATE * 0.02; shift++) {
      pieceBest = Math.max(pieceBest, correlationAt(signal, reference, global + shift, from, from + piece));
    }
    scores.push(pieceBest);
  }
  scores.sort((x, y) => x - y);
  return scores[Math.floor(scores.length / 2)] ?? 0;
}

beforeAll(async () => {
  server = await startSoundServer();
  interruption = await cleanUtteranceWav(server.dir);
  sim = await startSim({
    timing: { transcriptionDelayMs: 80, ttftMs: 150, tokensPerSecond: 40, ttsFirstByteMs: 100, ttsRealtimeFactor: 1.5 },
  });
  mix = await recordMix(server);
  hark = spawn(process.execPath, [HARK, 'run'], {
    env: {
      ...server.env,
      HARK_SERVICE_BASE_URL: sim.url,
      HARK_API_KEY: sim.apiKey,
      HARK_AUDIO_RECORDER: 'arecord',
      HARK_AUDIO_PLAYER: process.env.HARK_TEST_PLAYER ?? 'auto',
      HARK_AUDIO_EARCONS: 'false',
      HARK_WAKE_ENGINE: 'none',
      // The status page is served from the microphone: on any free port, so another hark here does not clash.
      HARK_WEB_LISTEN: '127.0.0.1:0',
      HARK_LOG_LEVEL: 'debug',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let pending = '';
  hark.stdout?.on('data', (d: Buffer) => {
    pending += d.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as Record<string, unknown>);
  });
  const [chosen] = await Promise.all([nextEvent('player.chosen'), nextEvent('hark.listening')]);
  console.log(`hark plays through ${String(chosen.player)} (${String(chosen.reason)})`);
  await wait(1500);
});

afterAll(async () => {
  hark?.kill('SIGTERM');
  await new Promise((resolve) => hark?.once('exit', resolve));
  await mix?.stop();
  await sim?.close();
  await server?.close();
});

describe('hark through a real sound server', () => {
  it("hears the recording on the virtual microphone and plays the stand-in's speech on the virtual speaker", async () => {
    const reply = 'I hear you through a real sound server.';
    sim.script.transcript('Can you hear me?').reply(reply);
    const before = readMix(mix.path).hark.length;
    const turnDone = nextEvent('turn');
    await play(server, 'hark_mic_feed', UTTERANCE);
    const turn = await turnDone;
    expect(turn).toMatchObject({ transcript: 'Can you hear me?', reply, interrupted: false });
    await wait(500);
    const { hark: voice } = readMix(mix.path);
    const windows = envelope(voice.subarray(before));
    const start = windows.findIndex((v) => v > VOICE);
    expect(start).toBeGreaterThan(0);
    const spokenMs = windows.filter((v) => v > VOICE).length * 10;
    const expected = await renderSpeech(
      { text: reply, sampleRateHz: MIX_RATE, speed: 1, volume: 1, pitch: 1, voice: undefined },
      sim.voiceEngine,
    );
    const expectedMs = (expected.length / MIX_RATE) * 1000;
    expect(spokenMs).toBeGreaterThan(expectedMs * 0.5);
    const onset = before + start * (MIX_RATE / 100);
    const correlation = matchedCorrelation(voice, expected, onset);
    console.log(
      `reply on the virtual speaker: ${spokenMs} ms voiced of ${Math.round(expectedMs)} ms rendered; correlation ${correlation.toFixed(3)}`,
    );
    expect(correlation).toBeGreaterThan(0.9);
  });

  it('stops the real playback when the user talks over it, and reports onset-to-silence', async () => {
    sim.script
      .transcript('Tell me a long story.', 'Stop, that is enough.')
      .reply(
        { text: 'Once upon a time, a small robot lived in a lighthouse by the sea. '.repeat(6), tokensPerSecond: 30 },
        'All right.',
      );
    const before = readMix(mix.path).hark.length;
    const speaking = nextEventWhere((e) => e.event === 'assistant.state' && e.state === 'speaking');
    await play(server, 'hark_mic_feed', UTTERANCE);
    // hark is speaking: let a second of the reply play, then talk over it.
    await speaking;
    await wait(1000);
    const interruptFrom = readMix(mix.path).mic.length;
    const bargedIn = nextEvent('barge-in');
    const nextTurns = nextEvent('turn');
    await play(server, 'hark_mic_feed', interruption);
    const bargeIn = await bargedIn;
    await nextTurns;
    await wait(1500);
    const { mic, hark: voice } = readMix(mix.path);
    const micWindows = envelope(mic);
    const voiceWindows = envelope(voice);
    const onset = micWindows.findIndex((v, i) => i * (MIX_RATE / 100) >= interruptFrom && v > SPEECH);
    expect(onset).toBeGreaterThan(0);
    // Silence: the first full second without hark's voice after the interruption began (pauses
    // between sentences are shorter; the reply to the interruption comes seconds later).
    let silence = -1;
    for (let i = onset; i + 100 < voiceWindows.length; i++) {
      if (voiceWindows.slice(i, i + 100).every((v) => v < VOICE)) {
        silence = i;
        break;
      }
    }
    if (silence <= onset) {
      const around = (w: number[]) =>
        w
          .slice(Math.max(0, onset - 150), onset + 50)
          .map((v) => Math.round(v / 100))
          .join(' ');
      console.log(
        `hark around the interruption (x100 RMS, 10 ms windows):\n${around(voiceWindows)}\nmic:\n${around(micWindows)}`,
      );
    }
    expect(silence).toBeGreaterThan(onset);
    const onsetToSilenceMs = (silence - onset) * 10;
    const playedBefore =
      voiceWindows.slice(Math.floor(before / (MIX_RATE / 100)), onset).filter((v) => v > VOICE).length * 10;
    console.log(
      `barge-in on real playback: speech onset to silence ${onsetToSilenceMs} ms (hark's own measure: ${String(bargeIn.onsetToStopMs)} ms; ${playedBefore} ms of the reply had played)`,
    );
    expect(playedBefore).toBeGreaterThan(500);
    expect(onsetToSilenceMs).toBeLessThan(600);
    // The silence is hark pausing for the user, not a gap between sentences that happened to
    // follow: the reply was sounding just before the user began.
    const soundingBefore = voiceWindows.slice(onset - 30, onset).filter((v) => v > VOICE).length;
    expect(soundingBefore).toBeGreaterThan(0);
  });
});

describe('hark hearing its own voice through a real sound server', () => {
  let unplug: (() => void) | undefined;
  afterAll(() => unplug?.());

  it('with its reply fed back into the microphone as loud as the user, plays it to the end and takes nothing of it for the user', async ({
    onTestFailed,
  }) => {
    onTestFailed(printLastEvents);
    // From here on, everything hark plays reaches its microphone as loud as the user's speech
    // (hark's voice leaves at about -17 dBFS, the user's recording is at about -25 dBFS).
    unplug = feedBack(server, 'hark_speaker', 'hark_mic_feed', -8);
    const reply = 'A lighthouse keeper kept the lamp burning through the long winter nights. '.repeat(2);
    // Should any of hark's own voice be sent to be transcribed, the stand-in answers with words
    // hark never said: they must not become a query, nor cut the reply.
    sim.script
      .transcript('Tell me about lighthouses.', 'What about the keepers?')
      .reply({ text: reply, tokensPerSecond: 30 });
    const seen = events.length;
    const transcriptionsBefore = sim.requestsTo('transcription').length;
    const firstTurn = nextEvent('turn', 60_000);
    await play(server, 'hark_mic_feed', UTTERANCE);
    const first = await firstTurn;
    expect(first).toMatchObject({
      transcript: 'Tell me about lighthouses.',
      reply: reply.trimEnd(),
      interrupted: false,
    });
    await wait(1500);
    // Nothing hark heard of itself became a turn or cut the reply.
    const since = events.slice(seen);
    expect(since.filter((e) => e.event === 'turn')).toHaveLength(1);
    expect(since.filter((e) => e.event === 'barge-in')).toEqual([]);
    // Should the canceller let a moment of hark's voice through (a real sound server sometimes
    // does), the reply pauses for it and plays on, and its words are dismissed, never a query.
    const dismissed = since.filter((e) => e.event === 'turn.empty' || e.event === 'turn.ignored');
    for (const verdict of dismissed) {
      expect(verdict).toMatchObject({
        event: 'turn.ignored',
        reason: expect.stringMatching(/^(not an interruption|own voice)$/),
      });
    }
    // Every other request was for the user's question.
    const { transcriptionRequests, extraRequests } = first as {
      transcriptionRequests: number;
      extraRequests: { transcriptions: number };
    };
    expect(sim.requestsTo('transcription').length - transcriptionsBefore).toBe(
      transcriptionRequests + extraRequests.transcriptions + dismissed.length,
    );
    console.log(
      `with its reply fed back as loud as the user: ${String(dismissed.length)} stretch(es) of its own voice dismissed`,
    );
  });

  it('with its reply fed back 6 dB below the user, still stops when the user talks over it', async ({
    onTestFailed,
  }) => {
    onTestFailed(printLastEvents);
    // Echo as loud as the user leaves an unconverged canceller nothing to tell them apart by
    // (the room bench measures that case); here the user is 6 dB above it.
    unplug?.();
    unplug = feedBack(server, 'hark_speaker', 'hark_mic_feed', -14);
    sim.script.clear();
    sim.script
      .transcript('What about the keepers?', 'Stop, that is enough.')
      .reply({ text: 'Once upon a time, a keeper lived by the sea. '.repeat(6), tokensPerSecond: 30 }, 'All right.');
    const seen = events.length;
    const speaking = nextEventWhere((e) => e.event === 'assistant.state' && e.state === 'speaking', 60_000);
    const bargedIn = nextEvent('barge-in', 60_000);
    const cut = nextEvent('turn', 60_000);
    // Answered by the reply to the interruption: with a canceller that takes next to nothing out, a
    // first word followed by a pause can pause the reply and be dismissed (the stand-in then gives
    // the scripted transcript to it), and what the user goes on with is what cuts the reply.
    const answered = nextEventWhere((e) => e.event === 'turn' && e.reply === 'All right.', 60_000);
    await play(server, 'hark_mic_feed', UTTERANCE);
    await speaking;
    await wait(2500);
    const userFrom = Date.now();
    await play(server, 'hark_mic_feed', interruption);
    const [bargeIn, cutTurn] = await Promise.all([bargedIn, cut]);
    expect(cutTurn).toMatchObject({ reply: expect.stringMatching(/^Once upon a time/), interrupted: 'speech' });
    // It was the user who cut it, not hark's own echo before the user spoke.
    expect(Date.parse(String(bargeIn.time))).toBeGreaterThan(userFrom);
    expect(events.slice(seen).filter((e) => e.event === 'barge-in')).toHaveLength(1);
    // What the canceller knew when the barge-in was judged is in the log (printed above when this test fails).
    expect(events.slice(seen).find((e) => e.event === 'echo.at-barge-in' && e.phase === 'confirmed')).toMatchObject({
      trusted: expect.any(Boolean),
      delayMs: expect.any(Number),
    });
    // What the user said over the reply is answered.
    expect(await answered).toMatchObject({ reply: 'All right.', interrupted: false });
    console.log(
      `with the echo fed back 6 dB below the user: barge-in ${String(bargeIn.onsetToStopMs)} ms from the onset hark detected to the cut`,
    );
  });

  it('with its echo path shifting under the canceller mid-reply (the loopback restarted with another latency), plays the reply to the end', async ({
    onTestFailed,
  }) => {
    onTestFailed(printLastEvents);
    // This test comes last: what it does to the sound server (loopbacks torn down and made
    // again) may stay with it.
    unplug?.();
    unplug = feedBack(server, 'hark_speaker', 'hark_mic_feed', -8);
    const reply = 'The keeper climbed the stairs, trimmed the wick and wound the clockwork every night. '.repeat(2);
    sim.script.clear();
    sim.script
      .transcript('Tell me about the keepers.', 'What about the ships?')
      .reply({ text: reply, tokensPerSecond: 30 });
    const seen = events.length;
    const speaking = nextEventWhere((e) => e.event === 'assistant.state' && e.state === 'speaking', 60_000);
    const firstTurn = nextEvent('turn', 60_000);
    await play(server, 'hark_mic_feed', UTTERANCE);
    await speaking;
    // Once the canceller has settled, the echo's way back is torn down and made again, each time
    // with another latency: for a moment nothing comes back, then hark's voice comes back later
    // or sooner than the filter was aligned to.
    await wait(2500);
    let shifts = 0;
    for (const latencyMs of [220, 60, 220, 60]) {
      if (events.slice(seen).some((e) => e.event === 'turn')) break;
      unplug();
      unplug = feedBack(server, 'hark_speaker', 'hark_mic_feed', -8, latencyMs);
      shifts++;
      await wait(1200);
    }
    const turn = await firstTurn;
    expect(turn).toMatchObject({
      transcript: 'Tell me about the keepers.',
      reply: reply.trimEnd(),
      interrupted: false,
    });
    expect(shifts).toBeGreaterThanOrEqual(3);
    await wait(1500);
    const since = events.slice(seen);
    expect(since.filter((e) => e.event === 'turn')).toHaveLength(1);
    expect(since.filter((e) => e.event === 'barge-in')).toEqual([]);
    const count = (event: string) => since.filter((e) => e.event === event).length;
    console.log(
      `with its echo path shifted ${String(shifts)} times mid-reply: the canceller re-aligned ${String(count('echo.realigned'))} time(s); the reply paused ${String(count('barge-in.paused'))} time(s) and played on`,
    );
  });
});
