/**
 * hark on a small board in a room, through a real sound server (bench/src/sound-server.ts):
 * the daemon as it runs there (`hark run`, arecord through ALSA's pulse plugin, pacat), capped,
 * the room's noise always in the microphone, the stand-in outside the cap. In one run:
 * (d) its CPU from the cgroup over steady windows of the room alone and of speech without the
 * wake word; (b) voice to voice, from the labelled end of a question after the wake word to
 * hark's first sample in the mix; (c) with hark's voice fed back into the microphone as loud as
 * the user, from the labelled onset of speech over its reply to its voice pausing in the mix;
 * and its memory before it is stopped.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { bufferOf } from '../../dist/audio/pcm.js';
import type { CpuBudget } from './cpu-cap.js';
import { boardCap } from './cpu-cores.js';
import { BEHIND_EVENTS, HarkProcess, type Build, type LogLine, type Memory } from './board-hark.js';
import { asItIs, resampledTo, room, writeWav, type Piece } from './board-audio.js';
import { locate, mixFrom, mixLength, msOfMix, pauseStarts, pauses, sounding, voiceStarts } from './board-mix.js';
import { withoutReadAt } from './board-wake.js';
import { DELAYS, REPLY, STORY, script, storyVoice } from './board-stand-in.js';
import { RemoteSim } from './sim-client.js';
import { MIX_RATE, feedBack, play, recordMix, startSoundServer, type SoundServer } from './sound-server.js';
import { RATE } from './wake-audio.js';

/** Speech over hark's voice as loud as the user's (hark leaves at about -17 dBFS, the clips are about -25 dBFS). */
const ECHO_GAIN_DB = -8;

export interface CpuWindow {
  audioMs: number;
  cpuMs: number;
  /** % of one core. */
  percent: number;
  /** CPU ms by process name (node: hark; arecord: its recorder). */
  byCommand: Record<string, number>;
}

export interface RoomRun {
  cpu?: { silence: CpuWindow; speech: CpuWindow };
  turns: {
    name: string;
    answered: boolean;
    voiceToVoiceMs?: number;
    harkSaysMs?: number;
    match?: number;
    note?: string;
  }[];
  bargeIns: {
    name: string;
    pausedMs?: number;
    bargeInLogged: boolean;
    note?: string;
    match?: number;
    /** Pauses in hark's voice before the speech was played over it (its own voice taken for the user's), and in how much of it. */
    before?: { pauses: number; ms: number };
  }[];
  memory?: Memory;
  behind: Record<string, unknown>[];
  failure?: string;
}

export interface RoomPlan {
  windowMs: number;
  questions: (Piece & { speech: { startMs: number; endMs: number } })[];
  interruptions: string[];
  speech: Int16Array;
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * A question left unanswered this long ends the run's questions (hark is far behind or did not
 * hear the wake word; later ones would only queue behind it): the rest are counted unanswered.
 */
const ANSWER_WITHIN_MS = 45_000;
/** hark's voice pausing later than this after the words began is no answer to them. */
const PAUSE_WITHIN_MS = 8000;

/** CPU ms of each process in the group, by name, from /proc (10 ms ticks). */
function cpuByCommand(cap: CpuBudget): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pid of cap.pids()) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (out[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) * 10;
    } catch {
      // Exited meanwhile.
    }
  }
  return out;
}

async function measure(cap: CpuBudget, ms: number): Promise<CpuWindow> {
  const [cpu, by] = [cap.usedMs(), cpuByCommand(cap)];
  const started = performance.now();
  await wait(ms);
  const audioMs = performance.now() - started;
  const cpuMs = cap.usedMs() - cpu;
  const after = cpuByCommand(cap);
  const byCommand = Object.fromEntries(Object.entries(after).map(([name, v]) => [name, v - (by[name] ?? 0)]));
  return { audioMs, cpuMs, percent: (cpuMs / audioMs) * 100, byCommand };
}

/** The room's noise into the microphone feed, without a break, until stopped. */
function playRoom(server: SoundServer): () => void {
  const bed = bufferOf(room(30_000));
  const player = spawn(
    'pacat',
    ['--playback', '--raw', '--format=s16le', `--rate=${RATE}`, '--channels=1', '--device=hark_mic_feed'],
    { env: server.env, stdio: ['pipe', 'ignore', 'ignore'] },
  );
  let stopped = false;
  player.stdin.on('error', () => undefined);
  const pump = (): void => {
    if (!stopped && player.stdin.write(bed)) setImmediate(pump);
    else if (!stopped) player.stdin.once('drain', pump);
  };
  pump();
  return () => {
    stopped = true;
    player.kill('SIGTERM');
  };
}

export async function roomRun(build: Build, percent: number | undefined, plan: RoomPlan): Promise<RoomRun> {
  const server = await startSoundServer();
  const stopRoom = playRoom(server);
  const sim = await RemoteSim.start({ voice: 'synthetic', timing: DELAYS });
  const mix = await recordMix(server);
  const cap = boardCap(`hark-bench-${process.pid}-${Math.round(Math.random() * 1e9)}`, percent);
  const { HOME: _home, PATH: _path, ...sound } = server.env;
  const hark = HarkProcess.start({
    build,
    cap,
    service: sim,
    args: [],
    env: { ...sound, HARK_AUDIO_ECHO_CANCEL: 'on' },
  });
  const result: RoomRun = { turns: [], bargeIns: [], behind: [] };
  // What is played into the microphone feed is at the mix's rate: what is found in the mix is what was played.
  const clip = (name: string, samples: Int16Array): Clip => {
    const resampled = resampledTo(samples, MIX_RATE);
    return { path: writeWav(join(server.dir, `${name}.wav`), resampled, MIX_RATE), samples: resampled };
  };
  try {
    const ready = await Promise.all(
      ['hark.listening', 'vad.ready', 'wake.ready', 'echo.ready'].map((e) => hark.event(e, 240_000)),
    );
    if (ready.some((line) => !line)) throw new Error(`hark did not start listening with its models: ${hark.tail()}`);
    await settle(hark);
    result.cpu = {
      silence: await measure(cap, plan.windowMs),
      speech: await (async () => {
        const playing = play(server, 'hark_mic_feed', clip('speech', plan.speech).path);
        await wait(1000);
        const window = await measure(cap, plan.windowMs);
        await playing;
        return window;
      })(),
    };
    // The questions are asked of a hark that has caught up with the speech it was just played.
    await settle(hark);
    for (const [i, question] of plan.questions.entries()) {
      if (result.turns.some((t) => !t.answered)) {
        result.turns.push({
          name: question.name,
          answered: false,
          note: 'not asked: an earlier question went unanswered',
        });
        continue;
      }
      result.turns.push(await turn(hark, sim, server, mix.path, question, clip(`question-${i}`, question.samples)));
    }
    await sim.voice(storyVoice());
    const unplug = feedBack(server, 'hark_speaker', 'hark_mic_feed', ECHO_GAIN_DB, undefined, 'fixed');
    try {
      for (const [i, name] of plan.interruptions.entries()) {
        if (result.bargeIns.some((b) => b.note === UNANSWERED)) {
          result.bargeIns.push({ name, bargeInLogged: false, note: 'not tried: an earlier command went unanswered' });
          continue;
        }
        const command = plan.questions[i % plan.questions.length] as Piece;
        const over = await asItIs(name);
        result.bargeIns.push(
          await bargeIn(
            hark,
            sim,
            server,
            mix.path,
            { ...over, ...clip(`over-${name}`, over.samples) },
            clip(`command-${i}`, command.samples),
          ),
        );
      }
    } finally {
      unplug();
    }
  } catch (error) {
    result.failure = (error as Error).message;
  } finally {
    result.memory = hark.memory() ?? hark.lastMemory;
    result.behind = hark.lines.filter((l) => (BEHIND_EVENTS as readonly string[]).includes(l.event)).map(withoutReadAt);
    await hark.stop();
    await cap.remove();
    await mix.stop();
    sim.close();
    stopRoom();
    await server.close();
    rmSync(server.dir, { recursive: true, force: true });
  }
  return result;
}

/** After its models load, a slow board may still be catching up: the steady window starts once it has. */
async function settle(hark: HarkProcess): Promise<void> {
  await wait(3000);
  const behind = hark.lines.findLastIndex((l) => l.event === 'listen.behind');
  if (behind >= 0) await hark.event('listen.caught-up', 60_000, behind);
  await wait(2000);
}

interface Clip {
  path: string;
  /** At the mix's rate. */
  samples: Int16Array;
}

/** Where the clip played after `before` lies in the mix, and the mix from a little before it. */
function find(mixPath: string, before: number, clip: Clip) {
  const origin = Math.max(0, before - MIX_RATE / 10);
  const mix = mixFrom(mixPath, origin);
  const found = locate(mix.mic, clip.samples, 0, MIX_RATE * 1.6);
  return { ...mix, origin, at: found.at, match: found.match };
}

/**
 * A turn the user went on speaking into before a word of the reply was heard: hark took it for
 * a pause in the question, dropped the reply and takes the question up again in the next turn.
 */
function talkedOn(line: LogLine): boolean {
  return line.interrupted === 'speech' && line.heard === '';
}

async function turn(
  hark: HarkProcess,
  sim: RemoteSim,
  server: SoundServer,
  mixPath: string,
  question: Piece & { speech: { startMs: number; endMs: number } },
  played: Clip,
): Promise<RoomRun['turns'][number]> {
  await script(sim, 'What is the tallest mountain in the world?', REPLY);
  const before = mixLength(mixPath);
  const seen = hark.lines.length;
  await play(server, 'hark_mic_feed', played.path);
  const done = await hark.next((line) => line.event === 'turn' && !talkedOn(line), ANSWER_WITHIN_MS, seen);
  await wait(1000);
  const found = find(mixPath, before, played);
  const end = Math.round(found.at + (question.speech.endMs / 1000) * MIX_RATE);
  const first = voiceStarts(found.hark, end);
  const says = (done?.latencyMs as Record<string, number> | undefined)?.firstSamplePlayed;
  return {
    name: question.name,
    answered: done?.reply === REPLY,
    match: found.match,
    ...(done && first !== undefined ? { voiceToVoiceMs: msOfMix(first - end) } : {}),
    ...(says === undefined ? {} : { harkSaysMs: says }),
  };
}

const UNANSWERED = 'hark did not answer the command';
export const PAUSED_BEFORE = 'hark was not speaking at the onset (paused before the words)';

async function bargeIn(
  hark: HarkProcess,
  sim: RemoteSim,
  server: SoundServer,
  mixPath: string,
  over: Clip & { name: string; speech: { startMs: number } },
  command: Clip,
): Promise<RoomRun['bargeIns'][number]> {
  await script(sim, 'Tell me a long story.', STORY);
  const seen = hark.lines.length;
  const from = mixLength(mixPath);
  await play(server, 'hark_mic_feed', command.path);
  // Talk over it once hark has spoken for 1.5 s (the canceller has heard its voice by then).
  // Only the mix's last second is read again each time: reading it all from `from` every 100 ms
  // took the bench longer the longer hark took to answer.
  const until = performance.now() + ANSWER_WITHIN_MS;
  let speaking = false;
  let spokeFrom: number | undefined;
  let scanned = from;
  while (!speaking && performance.now() < until) {
    await wait(100);
    const length = mixLength(mixPath);
    if (spokeFrom === undefined) {
      const starts = voiceStarts(mixFrom(mixPath, scanned).hark, 0);
      if (starts === undefined) scanned = Math.max(scanned, length - MIX_RATE);
      else spokeFrom = scanned + starts;
    }
    speaking = spokeFrom !== undefined && length - spokeFrom > 1.5 * MIX_RATE;
  }
  const base = { name: over.name, bargeInLogged: false };
  if (!speaking || spokeFrom === undefined) return { ...base, note: UNANSWERED };
  await script(sim, 'Wait, I have a question.', 'All right.');
  const before = mixLength(mixPath);
  await play(server, 'hark_mic_feed', over.path);
  // Over when the story has ended or been cut, and the words said over it have been answered (or not).
  const story = await hark.next((l) => l.event === 'turn' && String(l.reply).startsWith('Once upon'), 40_000, seen);
  await hark.next(
    (l) => l.event === 'turn' && l.reply === 'All right.',
    10_000,
    story ? hark.lines.indexOf(story) : seen,
  );
  await wait(1000);
  const found = find(mixPath, before, over);
  const onset = Math.round(found.at + (over.speech.startMs / 1000) * MIX_RATE);
  const result = {
    ...base,
    bargeInLogged: hark.lines.slice(seen).some((l) => l.event === 'barge-in'),
    match: found.match,
  };
  const replyBefore = mixFrom(mixPath, spokeFrom).hark.subarray(0, found.origin + found.at - spokeFrom);
  const measured = { ...result, before: { pauses: pauses(replyBefore), ms: msOfMix(replyBefore.length) } };
  // Already paused (for its own voice, or the clip's sounds before its words): no pause to measure.
  if (!sounding(found.hark, onset)) return { ...measured, note: PAUSED_BEFORE };
  const pause = pauseStarts(found.hark, onset);
  if (pause === undefined || pause > onset + (PAUSE_WITHIN_MS / 1000) * MIX_RATE)
    return { ...measured, note: `no pause within ${PAUSE_WITHIN_MS / 1000} s` };
  return { ...measured, pausedMs: msOfMix(pause - onset) };
}
