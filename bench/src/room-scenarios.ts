/**
 * The room benchmark's scenarios, each one run of the room loop for a seed, scored against the
 * labels of what the user side of the room did (never against what hark itself detected).
 */
import type { HarkConfig } from '../../dist/config/schema.js';
import type { AssistantEvent } from '../../dist/pipeline/events.js';
import type { RoomOptions } from '../dist/room/test/room/room.js';
import {
  ALL_SPEECH,
  CLIP_WORDS,
  FALSE_INTERRUPTIONS,
  ONE_STRETCH,
  SPEECH_DBFS,
  labelledClip,
  longReplyBank,
  replyBank,
} from './room-audio.js';
import { RoomLoop, type LabelledClip } from './room-loop.js';

/** Noise of the room, dBFS: a quiet room heard through a decent microphone. */
export const NOISE_DBFS = -70;

export interface ScenarioOptions {
  seed: number;
  voice: Map<string, Int16Array>;
  /** Echo at the microphone relative to the user's normal speech level, dB. */
  echoDb: number;
  configure?: ((config: HarkConfig) => void) | undefined;
  /** Keep what the replay of the listening half needs (see room-cpu.ts). */
  record?: boolean;
  /** The room's sound server underruns (see `RoomOptions.underruns`). */
  underruns?: RoomOptions['underruns'];
}

/** The room for a seed: the delay (30-300 ms) and the room response are drawn from it; hark is told neither. */
export function roomFor(seed: number, echoDb: number): Partial<RoomOptions> {
  const draw = mulberry(seed);
  return {
    delayMs: 30 + Math.round(draw() * 270),
    driftMs: 3,
    driftPeriodMs: 90_000,
    rt60Ms: 200 + Math.round(draw() * 300),
    directToReverbDb: 3,
    speechLevelDbfs: SPEECH_DBFS,
    playedLevelDbfs: SPEECH_DBFS,
    echoDb,
    snrDb: SPEECH_DBFS - NOISE_DBFS,
  };
}

function mulberry(seed: number): () => number {
  let a = (seed * 2654435761) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function start(options: ScenarioOptions, replies: string[][]): Promise<RoomLoop> {
  return RoomLoop.start({
    seed: options.seed,
    room: { ...roomFor(options.seed, options.echoDb), underruns: options.underruns },
    voice: options.voice,
    replies,
    configure: options.configure,
    record: options.record,
  });
}

type Recorded<K extends AssistantEvent['type']> = { at: number; event: Extract<AssistantEvent, { type: K }> };

const ofType = <K extends AssistantEvent['type']>(loop: RoomLoop, type: K): Recorded<K>[] =>
  loop.events.filter((e): e is Recorded<K> => e.event.type === type);

/** Whether labelled user speech overlaps [fromMs, toMs) by at least `minMs` (or all of a shorter span). */
function userSpoke(loop: RoomLoop, fromMs: number, toMs: number, minMs = 1): boolean {
  return loop.user
    .speechIn(fromMs, toMs)
    .some((s) => Math.min(toMs, s.endMs) - Math.max(fromMs, s.startMs) >= Math.min(minMs, s.endMs - s.startMs));
}

/** Where an utterance's audio lies on the room's clock, ms (stream time is room time: both start at 0). */
function span(utterance: { endMs: number; samples: Int16Array; sampleRateHz: number }): [number, number] {
  return [utterance.endMs - (utterance.samples.length / utterance.sampleRateHz) * 1000, utterance.endMs];
}

/** Queries (confirmed transcripts the gate let through) whose utterance held no labelled user speech: hark heard itself. */
function selfQueries(loop: RoomLoop): number {
  const utterances = new Map(ofType(loop, 'utterance').map(({ event }) => [event.utterance.id, event.utterance]));
  return ofType(loop, 'query').filter(({ event }) => {
    if (event.query.transcript.tentative) return false;
    const utterance = utterances.get(event.query.transcript.utteranceId);
    return utterance !== undefined && !userSpoke(loop, ...span(utterance), 100);
  }).length;
}

/** Interruption events not caused by the user: no labelled user speech in the second before. */
function notUser(loop: RoomLoop, phase: 'paused' | 'confirmed'): Recorded<'interruption'>[] {
  return ofType(loop, 'interruption').filter(
    ({ at, event }) => event.phase === phase && !userSpoke(loop, at - 1000, at + 1),
  );
}

/** Whether the judge let the paused reply play on (the speech over it ended without interrupting, or not yet). */
const playedOn = (phase: string | undefined): boolean => phase === 'resumed' || phase === 'dismissed';

/** Waits until hark is listening with nothing playing, then a moment more (a user waits for the end of a reply). */
async function waitForQuiet(loop: RoomLoop, pauseMs: number): Promise<void> {
  await loop.until(() => loop.state === 'listening' && loop.player.sounding() === undefined, 60_000);
  await loop.run(pauseMs);
}

/** Says a clip (a question) and waits for hark's reply to start. Returns false when it never did. */
async function ask(loop: RoomLoop, clip: LabelledClip): Promise<boolean> {
  const said = loop.say(clip, CLIP_WORDS[clip.name] ?? 'a question');
  return loop.until(() => loop.state === 'speaking', said.endMs - loop.now() + 6000);
}

export interface EchoRun {
  replies: number;
  repliesFinished: number;
  /** Confirmed interruptions and queries that no user speech caused. */
  selfInterruptions: number;
  selfTurns: number;
  /** Pauses that no user speech caused, and how many of them played on. */
  falsePauses: number;
  falsePausesResumed: number;
  /** Transcription requests for stretches with no user speech in them (hark's voice or noise). */
  ownTranscriptions: number;
  audioMs: number;
  loop: RoomLoop;
}

/**
 * `replies` replies with no user speech over them: does hark interrupt itself or take its own
 * voice for a query? With `louderAfter`, the echo starts `louderBy` dB quieter and jumps to its
 * level after that many replies (a speaker turned up: an echo path louder than hark measured).
 */
export async function echoOnly(
  options: ScenarioOptions,
  replies = 50,
  jump?: { louderAfter: number; louderBy: number },
): Promise<EchoRun> {
  const clips = ONE_STRETCH.map((name) => labelledClip(name, SPEECH_DBFS));
  const loop = await start(options, replyBank());
  if (jump) loop.room.setEchoDb(options.echoDb - jump.louderBy);
  await loop.run(1500);
  for (let i = 0; i < replies; i++) {
    if (jump && i === jump.louderAfter) loop.room.setEchoDb(options.echoDb);
    await waitForQuiet(loop, 500 + loop.draw() * 1000);
    await ask(loop, clips[i % clips.length] as LabelledClip);
  }
  await waitForQuiet(loop, 1500);
  await loop.close();
  const interruptions = ofType(loop, 'interruption');
  const pauses = notUser(loop, 'paused');
  return {
    replies,
    repliesFinished: ofType(loop, 'turn').filter(({ event }) => event.turn.interrupted === false).length,
    selfInterruptions: notUser(loop, 'confirmed').length,
    selfTurns: selfQueries(loop),
    falsePauses: pauses.length,
    falsePausesResumed: pauses.filter(({ at }) =>
      playedOn(interruptions.find((e) => e.at >= at && e.event.phase !== 'paused')?.event.phase),
    ).length,
    ownTranscriptions: loop.hearings.filter((h) => h.source !== 'user').length,
    audioMs: loop.now(),
    loop,
  };
}

export interface Interruption {
  clip: string;
  onsetMs: number;
  /** From the labelled onset to playback paused and to playback stopped, ms (negative: before the user spoke). */
  pausedMs: number | undefined;
  stoppedMs: number | undefined;
  /** Confirmed at or after the onset, before the clip was over and a second more. */
  detected: boolean;
  /** How long hark had been speaking at the onset, ms, and whether the canceller was trusted then. */
  intoReplyMs: number;
  trustedAtOnset: boolean;
}

export interface FalseInterruption {
  clip: string;
  paused: boolean;
  resumed: boolean;
  /** The reply was cut (it should never be). */
  cancelled: boolean;
}

export interface InterruptRun {
  interruptions: Interruption[];
  falseInterruptions: FalseInterruption[];
  selfInterruptions: number;
  audioMs: number;
  loop: RoomLoop;
}

/**
 * Real interruptions over hark's speech with its echo present: hark answers at length, and 0.8
 * to 3 s into the reply (after a false interruption now and then: a cough, a door, a knock) the
 * user talks over it with a labelled clip; hark answers that, and so on.
 */
export async function interruptions(options: ScenarioOptions, count = 40): Promise<InterruptRun> {
  const questions = ONE_STRETCH.map((name) => labelledClip(name, SPEECH_DBFS));
  const speech = ALL_SPEECH.map((name) => labelledClip(name, SPEECH_DBFS));
  const noises = FALSE_INTERRUPTIONS.map((name) => labelledClip(name));
  const loop = await start(options, longReplyBank());
  await loop.run(1500);
  const results: Interruption[] = [];
  const falses: FalseInterruption[] = [];
  for (let i = 0; results.length < count && i < count * 3; i++) {
    // The reply to the last interruption, if one started; else a question.
    if (!(await loop.until(() => loop.state === 'speaking', 4000))) {
      await waitForQuiet(loop, 400 + loop.draw() * 600);
      if (!(await ask(loop, questions[i % questions.length] as LabelledClip))) continue;
    }
    const speakingSince = lastSpeakingAt(loop);
    if (i % 3 === 1)
      falses.push(await falseInterruption(loop, noises[Math.floor(i / 3) % noises.length] as LabelledClip));
    await loop.run(800 + loop.draw() * 2200);
    if (loop.state !== 'speaking') continue;
    const clip = speech[Math.floor(loop.draw() * speech.length)] as LabelledClip;
    const placed = loop.say(clip, CLIP_WORDS[clip.name] ?? 'wait');
    const actions = loop.player.actions.length;
    const events = loop.events.length;
    await loop.run(placed.endMs - loop.now() + 1000);
    const onset = placed.onsetMs;
    const confirmed = loop.events
      .slice(events)
      .find(({ event }) => event.type === 'interruption' && event.phase === 'confirmed');
    const stopAt = loop.player.actions.findIndex((a, index) => index >= actions && a.type === 'stop');
    const stop = loop.player.actions[stopAt];
    // The pause that held until the stop (it may have come before the onset, if hark paused early).
    const before = stopAt < 0 ? [] : loop.player.actions.slice(0, stopAt);
    const pause = before.at(-1)?.type === 'pause' ? before.at(-1) : undefined;
    results.push({
      clip: clip.name,
      onsetMs: onset,
      pausedMs: pause ? pause.at - onset : undefined,
      stoppedMs: stop ? stop.at - onset : undefined,
      detected: confirmed !== undefined && stop !== undefined && confirmed.at >= onset,
      intoReplyMs: onset - speakingSince,
      trustedAtOnset: loop.trace.find((f) => f.atMs >= onset)?.trusted ?? false,
    });
  }
  await waitForQuiet(loop, 1000);
  await loop.close();
  return {
    interruptions: results,
    falseInterruptions: falses,
    selfInterruptions: notUser(loop, 'confirmed').length,
    audioMs: loop.now(),
    loop,
  };
}

function lastSpeakingAt(loop: RoomLoop): number {
  return [...loop.events].reverse().find((e) => e.event.type === 'state' && e.event.state === 'speaking')?.at ?? NaN;
}

/** A cough, a door or a knock over hark's reply: it may pause the reply, but must never cut it. */
async function falseInterruption(loop: RoomLoop, noise: LabelledClip): Promise<FalseInterruption> {
  await loop.run(600 + loop.draw() * 800);
  const turns = ofType(loop, 'turn').length;
  const placed = loop.say(noise, '');
  const events = loop.events.length;
  await loop.run(placed.endMs - loop.now() + 1000);
  const phases = loop.events.slice(events).flatMap(({ event }) => (event.type === 'interruption' ? [event.phase] : []));
  return {
    clip: noise.name,
    paused: phases.includes('paused'),
    resumed: phases.some(playedOn),
    cancelled:
      phases.includes('confirmed') ||
      ofType(loop, 'turn')
        .slice(turns)
        .some(({ event }) => event.turn.interrupted),
  };
}

export interface QuietTalkerRun {
  /** Per question: labelled speech, and how much of it lay inside utterances hark cut, ms; utterances and queries made of it. */
  questions: { clip: string; speechMs: number; keptMs: number; utterances: number; queries: number }[];
  loop: RoomLoop;
}

/** A quiet or distant talker (speech at `levelDbfs`) asks questions; hark answers each (its echo at its usual level). */
export async function quietTalker(options: ScenarioOptions, levelDbfs = -52, rounds = 3): Promise<QuietTalkerRun> {
  const clips = ONE_STRETCH.map((name) =>
    name === 'speech-a' ? { ...labelledClip('speech-a-quiet'), name } : labelledClip(name, levelDbfs),
  );
  const loop = await start(options, replyBank());
  await loop.run(1500);
  const asked: { clip: string; startMs: number; endMs: number }[] = [];
  for (let i = 0; i < clips.length * rounds; i++) {
    await waitForQuiet(loop, 600 + loop.draw() * 1000);
    const clip = clips[i % clips.length] as LabelledClip;
    const said = loop.say(clip, CLIP_WORDS[clip.name] ?? 'a question');
    asked.push({ clip: clip.name, startMs: said.startMs, endMs: said.startMs + clip.samples.length / 16 });
    await loop.until(() => loop.state === 'speaking', said.endMs - loop.now() + 6000);
  }
  await waitForQuiet(loop, 1500);
  await loop.close();
  const utterances = ofType(loop, 'utterance').map(({ event }) => ({
    id: event.utterance.id,
    span: span(event.utterance),
  }));
  const queries = ofType(loop, 'query').filter(({ event }) => !event.query.transcript.tentative);
  const queried = new Set(queries.map(({ event }) => event.query.transcript.utteranceId));
  return {
    questions: asked.map(({ clip, startMs, endMs }) => {
      const labelled = loop.user.speechIn(startMs, endMs).filter((s) => s.startMs >= startMs);
      const mine = utterances.filter(({ span: [from, to] }) => labelled.some((s) => from < s.endMs && to > s.startMs));
      let speechMs = 0;
      let keptMs = 0;
      for (const s of labelled) {
        speechMs += s.endMs - s.startMs;
        for (let t = s.startMs; t < s.endMs; t++) {
          if (mine.some(({ span: [from, to] }) => t >= from && t < to)) keptMs++;
        }
      }
      return { clip, speechMs, keptMs, utterances: mine.length, queries: mine.filter((u) => queried.has(u.id)).length };
    }),
    loop,
  };
}

export interface QuietRoomRun {
  minutes: number;
  /** Clicks and other sounds made, and earcons hark played. */
  sounds: number;
  earcons: number;
  /** Utterances cut (each a transcription request a real recogniser may turn into words), and queries made. */
  utterances: number;
  queries: number;
  loop: RoomLoop;
}

/**
 * A quiet room for `minutes`: nobody speaks, but there are clicks (labelled ones from the
 * fixtures and short synthetic ones), a breath, a rustle, and hark's own earcons now and then.
 */
export async function quietRoom(options: ScenarioOptions, minutes = 10): Promise<QuietRoomRun> {
  const speechA = labelledClip('speech-a');
  const speechC = labelledClip('speech-c');
  const cut = (clip: LabelledClip, fromMs: number, toMs: number, what: string): LabelledClip => ({
    name: what,
    samples: fade(clip.samples.slice(fromMs * 16, toMs * 16)),
    speech: [],
    sounds: [{ startMs: 0, endMs: toMs - fromMs, what }],
  });
  const sounds = [
    cut(speechA, 3990, 4060, 'click'),
    cut(speechA, 4110, 4200, 'click'),
    cut(speechA, 4280, 4460, 'breath'),
    cut(speechC, 2000, 3300, 'rustle'),
  ];
  const loop = await start(options, replyBank());
  let made = 0;
  let earcons = 0;
  while (loop.now() < minutes * 60_000) {
    await loop.run(1500 + loop.draw() * 4500);
    const what = loop.draw();
    if (what < 0.25) {
      loop.playEarcon((['listening', 'thinking', 'error'] as const)[Math.floor(loop.draw() * 3)] ?? 'thinking');
      earcons++;
    } else if (what < 0.6) {
      loop.say(click(loop.draw(), loop.draw()), '');
      made++;
    } else {
      loop.say(sounds[Math.floor(loop.draw() * sounds.length)] as LabelledClip, '');
      made++;
    }
  }
  await loop.run(2000);
  await loop.close();
  return {
    minutes,
    sounds: made,
    earcons,
    utterances: ofType(loop, 'utterance').length,
    queries: ofType(loop, 'query').filter(({ event }) => !event.query.transcript.tentative).length,
    loop,
  };
}

/** A synthetic click: a few milliseconds of decaying noise, peak -20 to -6 dBFS. */
function click(level: number, shape: number): LabelledClip {
  const samples = new Int16Array(16 * 20);
  const peak = 32768 * 10 ** ((-20 + level * 14) / 20);
  let state = Math.floor(shape * 1e9) + 1;
  for (let i = 0; i < samples.length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    samples[i] = Math.round(peak * Math.exp(-i / (16 * (1 + shape * 3))) * ((state / 0x7fffffff) * 2 - 1));
  }
  return { name: 'click', samples, speech: [], sounds: [{ startMs: 0, endMs: 20, what: 'click' }] };
}

/** 5 ms fades at both ends, so a cut adds no click of its own. */
function fade(samples: Int16Array): Int16Array {
  const n = Math.min(80, samples.length >> 1);
  for (let i = 0; i < n; i++) {
    samples[i] = Math.round((samples[i] as number) * (i / n));
    samples[samples.length - 1 - i] = Math.round((samples[samples.length - 1 - i] as number) * (i / n));
  }
  return samples;
}
