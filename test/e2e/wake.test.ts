import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runHark } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/speech.js';

const JARVIS = join(FIXTURES, 'wake-hey-jarvis.ogg');

describe('hark wake', () => {
  it('scan prints each wake word heard in a recording, with its time and score', async () => {
    const result = await runHark(['wake', 'scan', JARVIS]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^hey_jarvis at \d+\.\d\d s \(wake word ended at \d+\.\d\d s\), score 0\.\d\d$/m);
    expect(result.stdout).toMatch(/^1 wake word heard in 5\.\d\d s of audio \(hey_jarvis; threshold 0\.5\)$/m);
  });

  it('run on a recording at the pace of a microphone hears the wake word, then ends cleanly, its reply file written', async () => {
    const output = join(mkdtempSync(join(tmpdir(), 'hark-wake-run-')), 'reply.wav');
    const result = await runHark(['--sim', '--log-format', 'json', 'run', '--input', JARVIS, '-o', output], {
      timeoutMs: 120_000,
    });
    expect(result.code).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { event: string }).event);
    expect(events).toContain('wake');
    expect(events.at(-1)).toBe('hark.stopped');
    expect(existsSync(output)).toBe(true);
  }, 150_000);

  it('scan --json gives the detections and the peak score of every second, for every model asked for', async () => {
    const result = await runHark([
      'wake',
      'scan',
      JARVIS,
      '--json',
      '--models',
      'alexa,hey_jarvis',
      '--threshold',
      '0.6',
    ]);
    expect(result.code).toBe(0);
    const scan = JSON.parse(result.stdout) as {
      threshold: number;
      models: string[];
      detections: { model: string; atMs: number; endMs: number; score: number }[];
      peaksPerSecond: { second: number; scores: Record<string, number> }[];
    };
    expect(scan.models).toEqual(['alexa', 'hey_jarvis']);
    expect(scan.threshold).toBe(0.6);
    expect(scan.detections.map((d) => d.model)).toEqual(['hey_jarvis']);
    expect(scan.peaksPerSecond.map((p) => p.second)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(Math.max(...scan.peaksPerSecond.map((p) => p.scores.hey_jarvis ?? 0))).toBeGreaterThan(0.6);
    expect(Math.max(...scan.peaksPerSecond.map((p) => p.scores.alexa ?? 1))).toBeLessThan(0.5);
  });

  it('models says which models load and their licence; a missing one fails with the fix', async () => {
    const ok = await runHark(['wake', 'models']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^ok: openWakeWord hears hey_jarvis .*CC BY-NC-SA 4\.0, non-commercial use only/);
    const dir = mkdtempSync(join(tmpdir(), 'hark-wake-'));
    const config = join(dir, 'config.yaml');
    writeFileSync(config, 'wake:\n  models: [/nowhere/hey_hark.onnx]\n');
    const missing = await runHark(['--config', config, 'wake', 'models'], { env: cleanEnv() });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toMatch(/^fail: wake-word model \/nowhere\/hey_hark\.onnx not found$/m);
    expect(missing.stdout).toMatch(/^fix: .*"hey hark" in the transcript/m);
  });

  it('scan refuses a threshold out of range', async () => {
    const result = await runHark(['wake', 'scan', JARVIS, '--threshold', '1.5']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--threshold must be a number from 0\.01 to 0\.99/);
  });
});
