/**
 * What the status page costs the daemon: `hark run --input FILE` (read in real time, as from a
 * microphone) against the stand-in, its CPU time read from /proc over each 10 s. Three conditions:
 * the page disabled (web.enabled false), the page served with no browser connected, and a real
 * headless Chromium (Debian's chromium, through playwright-core) watching it. In the run with
 * the page, the browser connects and leaves every 10 s, so both of its conditions see the same
 * audio (one utterance and its turn per 10 s) and the same load on a shared machine.
 * Targets: ≤ 2 % of one core with a browser connected; ~0 with none.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { pcmToWav } from '../../dist/audio/wav-header.js';
import { startSim } from '../../dist/sim/server.js';
import { concatSamples, silence, speechClip } from './fixtures.js';
import { TICKS_PER_S, cpuTicks, median, percentile, round, table, writeResult } from './stats.js';

const HARK = fileURLToPath(new URL('../../dist/bin/hark.js', import.meta.url));
const SEGMENT_MS = 10_000;
/** The first segment is left out: the daemon is still warming up (JIT, the VAD's first runs). */
const WARM_UP_SEGMENTS = 1;
const CHROMIUM = process.env.HARK_TEST_CHROMIUM ?? '/usr/bin/chromium';

type Condition = 'page disabled' | 'page, no browser' | 'page, browser connected';

function waitForLine(child: ChildProcess, event: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    let rest = '';
    const onData = (d: Buffer): void => {
      rest += d.toString();
      let at;
      while ((at = rest.indexOf('\n')) >= 0) {
        const text = rest.slice(0, at);
        rest = rest.slice(at + 1);
        if (!text.startsWith('{')) continue;
        const line = JSON.parse(text) as Record<string, unknown>;
        if (line.event === event) {
          child.stdout?.off('data', onData);
          resolve(line);
        }
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`hark exited (${String(code)}) before ${event}`)));
  });
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One daemon over the input; `during(segment)` says the condition of each segment (and sets it up). */
async function measure(
  input: string,
  segments: number,
  web: boolean,
  during: (segment: number, url: string) => Promise<Condition>,
): Promise<Record<string, number[]>> {
  const sim = await startSim({});
  // A short reply: the turns are the same in every segment, and the page's cost is not lost among them.
  for (let i = 0; i < segments + 1; i++) {
    sim.script.transcript(`Question ${i + 1}: what time is it?`).reply('It is noon.');
  }
  const dir = mkdtempSync(join(tmpdir(), 'hark-bench-web-'));
  const child = spawn(
    process.execPath,
    [HARK, '--log-format', 'json', 'run', '--input', input, '-o', join(dir, 'out.wav'), ...(web ? ['--web'] : [])],
    {
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        HARK_SERVICE_BASE_URL: sim.url,
        HARK_API_KEY: sim.apiKey,
        HARK_WAKE_ENGINE: 'none',
        HARK_WEB_LISTEN: '127.0.0.1:0',
        HARK_WEB_ENABLED: String(web),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = web ? (((await waitForLine(child, 'web.listening')).urls as string[])[0] ?? '') : '';
  await waitForLine(child, 'hark.listening');
  const pid = child.pid as number;
  const samples: Record<string, number[]> = {};
  // Segments on the input's clock (from when hark listens), so setting one up does not shift the next.
  const origin = performance.now();
  for (let segment = 0; segment < segments; segment++) {
    const condition = await during(segment, url);
    const ticks = cpuTicks(pid);
    const started = performance.now();
    await pause(origin + (segment + 1) * SEGMENT_MS - started);
    const percent = ((cpuTicks(pid) - ticks) / TICKS_PER_S / ((performance.now() - started) / 1000)) * 100;
    if (segment >= WARM_UP_SEGMENTS) (samples[condition] ??= []).push(percent);
  }
  child.kill('SIGINT');
  await new Promise((resolve) => child.once('exit', resolve));
  await sim.close();
  return samples;
}

export async function benchWeb(segments = 13) {
  const clip = (await speechClip()).samples;
  const input = join(mkdtempSync(join(tmpdir(), 'hark-bench-web-')), 'input.wav');
  const parts: Int16Array[] = [];
  // One more segment than measured: the input must not end while the daemon is measured.
  for (let i = 0; i <= segments; i++) parts.push(clip, silence(SEGMENT_MS - 1600));
  writeFileSync(input, pcmToWav(concatSamples(parts), 16000));

  const disabled = await measure(input, segments, false, () => Promise.resolve('page disabled'));
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] });
  const page = await browser.newPage();
  let errors = 0;
  page.on('pageerror', () => errors++);
  const served = await measure(input, segments, true, async (segment, url) => {
    // Connected in odd segments, gone (a blank page: the live stream closed) in even ones.
    if (segment % 2 === 1) {
      await page.goto(url);
      await page.locator('#link[data-link="live"]').waitFor();
      return 'page, browser connected';
    }
    await page.goto('about:blank');
    return 'page, no browser';
  });
  await browser.close();

  const all = { ...disabled, ...served } as Record<Condition, number[] | undefined>;
  const stats = (condition: Condition) => {
    const values = all[condition] ?? [];
    return {
      samples: values.length,
      medianPercent: round(median(values), 2),
      p90Percent: round(percentile(values, 90), 2),
      meanPercent: round(values.reduce((a, b) => a + b, 0) / Math.max(1, values.length), 2),
      values: values.map((v) => round(v, 2)),
    };
  };
  const conditions: Condition[] = ['page disabled', 'page, no browser', 'page, browser connected'];
  const summary = Object.fromEntries(conditions.map((c) => [c, stats(c)])) as Record<
    Condition,
    ReturnType<typeof stats>
  >;
  const browserCost = round(
    summary['page, browser connected'].medianPercent - summary['page, no browser'].medianPercent,
    2,
  );
  const browserCostMean = round(
    summary['page, browser connected'].meanPercent - summary['page, no browser'].meanPercent,
    2,
  );
  const idleCostMean = round(summary['page, no browser'].meanPercent - summary['page disabled'].meanPercent, 2);
  const idleCost = round(summary['page, no browser'].medianPercent - summary['page disabled'].medianPercent, 2);
  console.log(
    `\nweb: daemon CPU, % of one core, over ${SEGMENT_MS / 1000} s segments (each with one utterance and its turn)`,
  );
  console.log(
    table([
      ['condition', 'segments', 'median %', 'p90 %', 'mean %'],
      ...conditions.map((c) => [
        c,
        summary[c].samples,
        summary[c].medianPercent,
        summary[c].p90Percent,
        summary[c].meanPercent,
      ]),
    ]),
  );
  console.log(
    table([
      ['cost of the page', 'median % of one core', 'mean %', 'target'],
      ['browser connected (vs no browser)', browserCost, browserCostMean, '≤ 2'],
      ['no browser (vs page disabled)', idleCost, idleCostMean, '~0'],
    ]),
  );
  if (errors) console.log(`(the page had ${errors} uncaught errors)`);
  const path = writeResult('web', {
    segmentMs: SEGMENT_MS,
    conditions: summary,
    browserCostMedianPercent: browserCost,
    idleCostMedianPercent: idleCost,
    browserCostMeanPercent: browserCostMean,
    idleCostMeanPercent: idleCostMean,
    targets: { browserConnectedPercent: 2, noBrowserPercent: 0 },
    pageErrors: errors,
  });
  console.log(`\nwritten to ${path}`);
  return summary;
}
