import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWavInfo } from '../../src/audio/wav-header.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { HARK, cleanEnv } from '../helpers/cli.js';
import { composeWav } from '../helpers/loop.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ timing: { ...FAST_TIMING, ttsRealtimeFactor: 1 } });
});
afterAll(() => sim.close());

const simEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv =>
  cleanEnv({ HARK_SERVICE_BASE_URL: sim.url, HARK_API_KEY: sim.apiKey, ...extra });

function hark(args: string[], env: NodeJS.ProcessEnv): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [HARK, ...args], { env });
}

function exited(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  return new Promise((resolve) => child.on('close', resolve));
}

/** Resolves once `stream` has printed text matching `pattern`. */
function printed(stream: NodeJS.ReadableStream, pattern: RegExp): Promise<string> {
  let text = '';
  return new Promise((resolve) =>
    stream.on('data', (d: Buffer) => {
      text += d.toString();
      if (pattern.test(text)) resolve(text);
    }),
  );
}

const halfWritten = (dir: string): string[] => readdirSync(dir).filter((name) => name.endsWith('.partial'));

describe('stopping part-way, nothing half-written is left behind', () => {
  it('run goes on when whoever read its log goes away: the reply is written whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-stop-'));
    sim.script.transcript('What time is it?').reply({ text: 'It is late. Time to sleep.' });
    const input = await composeWav([{ path: UTTERANCE, fromMs: 300, toMs: 1800 }, 1500]);
    const output = join(dir, 'reply.wav');
    const child = hark(['run', '--input', input, '--fast', '-o', output], simEnv({ HARK_WAKE_ENGINE: 'none' }));
    // `hark run ... | head -1`: the pipe closes under hark's log.
    child.stdout.destroy();
    expect(await exited(child)).toBe(0);
    expect(readWavInfo(readFileSync(output)).durationMs).toBeGreaterThan(1000);
    expect(halfWritten(dir)).toEqual([]);
  });

  it('the demo stopped by SIGTERM while it speaks keeps what was spoken, and says it was cut short', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-stop-'));
    const output = join(dir, 'reply.wav');
    const child = hark(['demo', '-o', output], cleanEnv());
    const stdout = printed(child.stdout, /what was spoken is in/);
    await printed(child.stderr, /hark is speaking/);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(await stdout).toMatch(/hark said: .*\[cut short\]\n[\s\S]*stopped: what was spoken is in /);
    expect(existsSync(output)).toBe(true);
    expect(halfWritten(dir)).toEqual([]);
  });

  it('the demo stopped by SIGTERM as its voice loop starts leaves nothing half-written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-stop-'));
    const child = hark(['demo', '-o', join(dir, 'reply.wav')], cleanEnv());
    await printed(child.stderr, /starting the voice loop/);
    child.kill('SIGTERM');
    expect(await exited(child)).toBe(0);
    expect(halfWritten(dir)).toEqual([]);
  });

  it('transcribe goes on when whoever read its log on stderr goes away: the transcript is printed whole', async () => {
    sim.script.transcript('Every word of it.');
    // Long enough to be sent in parts, each logged as it goes.
    const speech = { path: UTTERANCE, fromMs: 300, toMs: 1800 };
    const input = await composeWav([speech, 40_000, speech, 40_000, speech]);
    const child = hark(['--log-level', 'debug', 'transcribe', input], simEnv());
    child.stderr.destroy();
    const stdout = printed(child.stdout, /Every word of it\./);
    expect(await exited(child)).toBe(0);
    await stdout;
  });

  it('voice test stopped by Ctrl-C writing a file leaves no file and nothing half-written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hark-stop-'));
    const output = join(dir, 'voice.wav');
    const child = hark(['voice', 'test', '-o', output, 'A sentence to say. '.repeat(20)], simEnv());
    await printed(child.stderr, /speaking with/);
    child.kill('SIGINT');
    expect(await exited(child)).toBe(130);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a file run that answered nothing says why: its speech never began with the wake word', async () => {
    const input = await composeWav([{ path: UTTERANCE, fromMs: 300, toMs: 1800 }, 1500]);
    const child = hark(['run', '--input', input, '--fast'], simEnv());
    const log = printed(child.stdout, /"event":"hark.stopped"/);
    expect(await exited(child)).toBe(0);
    expect(await log).toMatch(/"level":"warn"[^\n]*"event":"listen.unanswered","utterances":1[^\n]*hey jarvis/);
  });
});
