import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readWavInfo } from '../../src/audio/wav-header.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { HARK, cleanEnv, runHark } from '../helpers/cli.js';
import { composeWav } from '../helpers/loop.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-ops-'));
let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ timing: { ...FAST_TIMING, ttsRealtimeFactor: 1 } });
});
afterAll(() => sim.close());

describe('hark doctor', () => {
  it('reports each check, with a fix for each failure, and exits 1', async () => {
    const result = await runHark(['--sim', 'doctor'], {
      env: cleanEnv({ HARK_AUDIO_CAPTURE_DEVICE: 'hark_no_such_mic' }),
    });
    expect(result.code).toBe(1);
    // The Node.js running it, and the platform whose onnxruntime build it loads.
    expect(result.stdout.match(/^ok +node +(.*)$/m)?.[1]).toBe(
      `v${process.versions.node} (${process.platform}-${process.arch})`,
    );
    expect(result.stdout).toMatch(/^ok +config +valid/m);
    expect(result.stdout).toMatch(/^ok +VAD model +Silero v5 loads and runs/m);
    // The default wake word, loaded and run, with its models' licence said plainly.
    expect(result.stdout).toMatch(
      /^ok +wake word +openWakeWord hears hey_jarvis \(hey_jarvis: pre-trained, .*CC BY-NC-SA/m,
    );
    expect(result.stdout).toMatch(
      /^FAIL +capture device +arecord cannot record from hark_no_such_mic: .*arecord.*\n +fix: plug in a microphone/m,
    );
    expect(result.stdout).toMatch(/^ok +service +http:\/\/127\.0\.0\.1:\d+\/ answers and accepts the key/m);
  });

  it('says when the key is rejected', async () => {
    const result = await runHark(['doctor'], {
      env: cleanEnv({ HARK_SERVICE_BASE_URL: sim.url, HARK_API_KEY: 'wrong-key-123' }),
    });
    expect(result.stdout).toMatch(
      /^FAIL +service +http:\/\/127\.0\.0\.1:\d+\/: key rejected \(authentication_error\)\n +fix: check the API key: HARK_API_KEY, or the systemd credential hark-api-key/m,
    );
  });

  it('reports a broken configuration as a failed check instead of crashing', async () => {
    const result = await runHark(['doctor'], { env: cleanEnv({ HARK_SPEECH_SPEED: '99' }) });
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /^FAIL +config +invalid configuration:\n +environment: HARK_SPEECH_SPEED \(speech\.speed\): must be at most 4/m,
    );
  });
});

describe('hark run as a systemd service', () => {
  it('tells systemd it is ready, pets the watchdog, and on SIGTERM stops mid-reply, cleanly, with exit 0', async () => {
    // systemd-notify stand-in: records what hark tells systemd.
    const notes = join(dir, 'notify.log');
    const script = join(dir, 'systemd-notify');
    writeFileSync(script, `#!/bin/sh\necho "$@" >> ${notes}\n`);
    chmodSync(script, 0o755);
    sim.script
      .transcript('Tell me a long story.')
      .reply({ text: 'Once upon a time there was a very long story. '.repeat(20), tokensPerSecond: 20 });
    const input = await composeWav([{ path: UTTERANCE, fromMs: 300, toMs: 1800 }, 20_000]);
    const output = join(dir, 'reply.wav');
    const env = cleanEnv({
      PATH: `${dir}:${process.env.PATH ?? ''}`,
      NOTIFY_SOCKET: '/run/hark-test/notify',
      WATCHDOG_USEC: '400000',
      HARK_SERVICE_BASE_URL: sim.url,
      HARK_API_KEY: sim.apiKey,
      HARK_WAKE_ENGINE: 'none',
    });
    const child = spawn(process.execPath, [HARK, '--log-level', 'debug', 'run', '--input', input, '--output', output], {
      env,
    });
    const before = sim.requests.length;
    let stdout = '';
    // Stopped once hark is speaking.
    await new Promise<void>((resolve) =>
      child.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        if (/"event":"assistant.state","state":"speaking"/.test(stdout)) resolve();
      }),
    );
    const stoppedAt = performance.now();
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(performance.now() - stoppedAt).toBeLessThan(3000);
    const notified = readFileSync(notes, 'utf8');
    expect(notified).toMatch(/^READY=1 STATUS=listening MAINPID=\d+$/m);
    expect(notified).toMatch(/^STATUS=speaking$/m);
    expect(notified).toMatch(/^WATCHDOG=1$/m);
    expect(notified).toMatch(/^STOPPING=1 STATUS=stopping: SIGTERM$/m);
    const lines = stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l.replace(/^<\d>/, '')) as Record<string, unknown>);
    expect(lines.map((l) => l.event)).toContain('hark.stopped');
    expect(lines.find((l) => l.event === 'turn')).toMatchObject({ interrupted: 'shutdown' });
    const chat = sim.requests.slice(before).find((r) => r.endpoint === 'chat');
    expect(await chat?.ended).toBe('client-closed');
    // What was played before the stop is in the file, and its header was finished.
    expect(readWavInfo(readFileSync(output)).durationMs).toBeGreaterThan(0);
  });
});
