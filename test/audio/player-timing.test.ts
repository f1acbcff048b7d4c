/**
 * What hark's player tells the echo canceller, against what the sound server plays: the
 * canceller takes out of the microphone what the player says sounds at each moment, so a player
 * whose audio sounds later than it says, or goes on after it said it stopped, leaves hark's own
 * voice in the microphone as if it were the user's. The player hark chooses with a sound server
 * (pacat), or with HARK_TEST_PLAYER=speaker the `speaker` package, plays into a user-mode
 * PulseAudio's null sink, whose monitor is recorded; each 100 ms of what the player said it
 * played is found in the recording, and its lag measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CommandPlayer } from '../../src/audio/command-player.js';
import { playerCommand, systemProbe } from '../../src/audio/choose-player.js';
import type { ClockedPlayer } from '../../src/audio/player.js';
import { SpeakerPlayer } from '../../src/audio/speaker-player.js';
import { realClock } from '../../src/system/clock.js';
import { silentLogger } from '../../src/system/logger.js';
import { correlationAt } from '../helpers/audio.js';
import { MIX_RATE, recordSink, startSoundServer, type SoundServer } from '../helpers/pulse.js';

const RATE = MIX_RATE;
const PIECE = RATE / 10;
const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Noise low-passed to a few hundred Hz: it correlates with itself at one lag only, and over a few samples either side. */
function noise(seed: number): (ms: number) => Buffer {
  let state = seed >>> 0;
  let low = 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
  };
  return (ms) => {
    const out = new Int16Array((RATE * ms) / 1000);
    for (let i = 0; i < out.length; i++) {
      low = 0.95 * low + 0.05 * next();
      out[i] = Math.max(-30000, Math.min(30000, Math.round(low * 120_000)));
    }
    return Buffer.from(out.buffer);
  };
}

/** Where `piece` is in the recording near `expected` (samples), and how alike: a coarse search, then a fine one. */
function locate(recording: Int16Array, piece: Int16Array, expected: number): { at: number; score: number } {
  let best = { at: 0, score: -1 };
  const from = Math.max(0, expected - RATE / 10);
  const to = Math.min(recording.length - piece.length, expected + (RATE * 4) / 10);
  for (let at = from; at <= to; at += 4) {
    const score = correlationAt(recording, piece, at, 0, piece.length, 4);
    if (score > best.score) best = { at, score };
  }
  const coarse = best.at;
  let fine = { at: coarse, score: correlationAt(recording, piece, coarse) };
  for (let at = Math.max(0, coarse - 4); at <= Math.min(to, coarse + 4); at++) {
    const score = correlationAt(recording, piece, at);
    if (score > fine.score) fine = { at, score };
  }
  return fine;
}

interface Told {
  startMs: number;
  samples: Int16Array;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

let server: SoundServer;
let player: ClockedPlayer;
const told: Told[] = [];
const drops: number[] = [];
/** Lags (recording against what the player said, ms) of the pieces of each reply, and when the pause began to sound silent. */
const measured = {
  first: [] as number[],
  second: [] as number[],
  resumed: [] as number[],
  afterStop: [] as number[],
  silentLagMs: NaN,
};

beforeAll(async () => {
  server = await startSoundServer();
  // The player's children find the test's sound server as they would the user's.
  for (const name of ['PULSE_SERVER', 'XDG_RUNTIME_DIR', 'ALSA_CONFIG_PATH'] as const)
    process.env[name] = server.env[name];
  const recording = await recordSink(server, 'hark_speaker', () => realClock.now());
  const speaker = process.env.HARK_TEST_PLAYER === 'speaker';
  player = speaker
    ? new SpeakerPlayer(RATE, null, silentLogger, realClock)
    : new CommandPlayer(playerCommand('pacat', null, systemProbe()), RATE, silentLogger, realClock);
  player.listen({
    write: (samples, _rate, startMs) => told.push({ startMs, samples: Int16Array.from(samples) }),
    drop: (atMs) => drops.push(atMs),
  });
  const signal = noise(7);
  // The first reply right after the player started, streamed at twice real time as speech synthesis does.
  const firstFrom = told.length;
  for (let ms = 0; ms < 1500; ms += 100) {
    player.write(signal(100));
    await wait(50);
  }
  await wait(2000);
  // The second, all at once, so that the device's buffer is full when it is paused.
  const secondFrom = told.length;
  player.write(signal(3000));
  await wait(1000);
  player.pause();
  const paused = drops.at(-1) ?? NaN;
  await wait(500);
  const resumedFrom = told.length;
  player.resume();
  await wait(2500);
  // Talked over: the next reply goes to a new player process, which takes a while to start.
  player.stop();
  await wait(300);
  const afterStopFrom = told.length;
  player.write(signal(1000));
  await wait(1500);
  await player.close();
  await wait(200);
  await recording.stop();

  const audio = recording.read();
  const startedAt = recording.startedAt();
  const lags = (entries: Told[]): number[] =>
    entries.flatMap(({ startMs, samples }) => {
      const found: number[] = [];
      for (let at = 0; at + PIECE <= samples.length; at += PIECE) {
        const pieceMs = startMs + (at / RATE) * 1000;
        const expected = Math.round(((pieceMs - startedAt) / 1000) * RATE);
        const { at: position, score } = locate(audio, samples.subarray(at, at + PIECE), expected);
        if (score >= 0.8) found.push(((position - expected) / RATE) * 1000);
      }
      return found;
    });
  measured.first = lags(told.slice(firstFrom, secondFrom));
  // Of the second reply, what was to sound before the pause.
  const second = told[secondFrom] as Told;
  const beforePause = second.samples.subarray(0, Math.floor(((paused - second.startMs - 100) / 1000) * RATE));
  measured.second = lags([{ startMs: second.startMs, samples: beforePause }]);
  measured.resumed = lags(told.slice(resumedFrom, afterStopFrom));
  measured.afterStop = lags(told.slice(afterStopFrom));
  // Where the recording goes silent after the pause, against where the player said it would.
  const lag = median(measured.second);
  const silentAt = Math.round(((paused + lag - startedAt) / 1000) * RATE);
  const window = RATE / 200;
  for (let at = silentAt - RATE / 10; at + window < audio.length; at += window) {
    let sum = 0;
    for (let i = at; i < at + window; i++) sum += (audio[i] as number) ** 2;
    if (Math.sqrt(sum / window) < 100) {
      measured.silentLagMs = ((at - silentAt) / RATE) * 1000;
      break;
    }
  }
  console.log(
    `${speaker ? 'speaker' : 'pacat'}: lag of the first reply ${median(measured.first).toFixed(0)} ms (${measured.first.length} pieces), the second ${lag.toFixed(0)} ms (${measured.second.length}), after the resume ${median(measured.resumed).toFixed(0)} ms (${measured.resumed.length}), after a stop ${median(measured.afterStop).toFixed(0)} ms (${measured.afterStop.length}); silent ${measured.silentLagMs.toFixed(0)} ms after the player said`,
  );
}, 60_000);

afterAll(async () => {
  await server?.close();
});

describe("hark's player against what the sound server plays", () => {
  it('the first reply after the player started sounds when the player says, as the next ones do', () => {
    expect(measured.first.length).toBeGreaterThan(10);
    expect(measured.second.length).toBeGreaterThan(5);
    expect(Math.abs(median(measured.first) - median(measured.second))).toBeLessThan(50);
  });

  it('after a pause, nothing of hark sounds once the player said it was silent, and the rest plays on when it says', () => {
    expect(measured.silentLagMs).toBeLessThanOrEqual(10);
    expect(measured.resumed.length).toBeGreaterThan(10);
    expect(Math.abs(median(measured.resumed) - median(measured.second))).toBeLessThan(50);
  });

  it('the reply after a stop, on a new player process, sounds when the player says', () => {
    expect(measured.afterStop.length).toBeGreaterThan(5);
    expect(Math.abs(median(measured.afterStop) - median(measured.second))).toBeLessThan(50);
  });
});
