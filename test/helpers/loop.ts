import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfig, type HarkConfig } from '../../src/config/schema.js';
import type { Turn } from '../../src/dialog/turn.js';
import { createService } from '../../src/service/index.js';
import { startSim, type SimOptions, type SimServer } from '../../src/sim/server.js';
import { createMemoryLogger } from '../../src/system/logger.js';
import { startVoiceLoop, type VoiceLoop } from '../../src/app/compose/voice-loop.js';
import { wavOf } from './audio.js';
import { FAST_TIMING } from './service.js';
import { fixtureSamples } from './speech.js';

export const workDir = mkdtempSync(join(tmpdir(), 'hark-loop-'));
let files = 0;

/** Part of a fixture: from `fromMs` to `toMs`. */
export interface Clip {
  path: string;
  fromMs: number;
  toMs: number;
}

/** A 16 kHz WAV of the given pieces: fixture paths, clips of them, or a number of milliseconds of silence. */
export async function composeWav(pieces: (string | Clip | number)[]): Promise<string> {
  const parts: Int16Array[] = [];
  for (const piece of pieces) {
    if (typeof piece === 'number') parts.push(new Int16Array(Math.round(piece * 16)));
    else if (typeof piece === 'string') parts.push(await fixtureSamples(piece));
    else parts.push((await fixtureSamples(piece.path)).subarray(piece.fromMs * 16, piece.toMs * 16));
  }
  const all = new Int16Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  const path = join(workDir, `input-${++files}.wav`);
  writeFileSync(path, wavOf(all, 16000));
  return path;
}

export interface LoopRun {
  sim: SimServer;
  loop: VoiceLoop;
  outcomes: Turn[];
  logger: ReturnType<typeof createMemoryLogger>;
  output: string;
  config: HarkConfig;
}

/** hark's voice loop on a file, against a stand-in prepared by `prepare`, until the input and its turns are done. */
export async function runLoop(options: {
  input: string;
  fast: boolean;
  sim?: SimOptions;
  prepare?: (sim: SimServer) => void;
  config?: (config: HarkConfig) => void;
  /** Where timers are kept (default: a new directory for this run). */
  stateDir?: string;
}): Promise<LoopRun> {
  const sim = await startSim({ ...options.sim, timing: { ...FAST_TIMING, ...options.sim?.timing } });
  options.prepare?.(sim);
  const config = defaultConfig();
  // The recordings here say no wake word; the tests of the wake word set one.
  config.wake.engine = 'none';
  options.config?.(config);
  const logger = createMemoryLogger('debug');
  const service = createService(config, { baseUrl: sim.url, apiKey: sim.apiKey }, logger);
  const output = join(workDir, `output-${++files}.wav`);
  const stateDir = options.stateDir ?? mkdtempSync(join(workDir, 'state-'));
  const loop = await startVoiceLoop(config, service, logger, {
    input: options.input,
    output,
    fast: options.fast,
    tools: { stateDir },
  });
  const outcomes: Turn[] = [];
  loop.events.subscribe((event) => event.type === 'turn' && outcomes.push(event.turn));
  try {
    await loop.done;
  } finally {
    await loop.stop();
    await service.close();
    await sim.close();
  }
  return { sim, loop, outcomes, logger, output, config };
}

/** The chat messages of a recorded chat-completions request, as role: text lines. */
export function chatMessages(body: unknown): string[] {
  const messages = (body as { messages: { role: string; content: string }[] }).messages;
  return messages.map((m) => `${m.role}: ${m.content}`);
}
