import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPcm16Mono } from '../../src/audio/wav-header.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { PHONE, launchChromium, screenshot, sidewaysScroll, watchedPage } from '../helpers/browser.js';
import { composeWav } from '../helpers/loop.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';
import { startWebHark } from '../helpers/web.js';

const VOICE_SAMPLE = 'Hello! This is how I sound. Do you like my voice?';
const LONG =
  'The tallest mountain on Earth is Mount Everest. It rises eight thousand eight hundred and forty nine metres above the sea. ' +
  'Climbers from all over the world try to reach its summit every spring. Many of them train for months before they go.';

const dir = mkdtempSync(join(tmpdir(), 'hark-browser-'));
let sim: SimServer;
let browser: Browser;
beforeAll(async () => {
  [sim, browser] = await Promise.all([
    startSim({ timing: { ...FAST_TIMING, ttsRealtimeFactor: 1 } }),
    launchChromium(),
  ]);
});
afterAll(async () => {
  await browser.close();
  await sim.close();
});

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const s of samples) sum += s * s;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

describe('the status page in Chromium, watching hark run --input FILE --web', () => {
  it('shows the live meters, a reply cut where the user talked over it, the next turn with its waterfall, and its voice test plays', async () => {
    // Real time: silence while the page connects, 1.5 s of speech, 2.2 s of hark talking, 1.2 s of speech over it.
    const clip = (ms: number) => ({ path: UTTERANCE, fromMs: 300, toMs: 300 + ms });
    const input = await composeWav([1000, clip(1500), 2200, clip(1200), 1500]);
    sim.script
      .transcript('Tell me about the tallest mountain.', 'Stop, what about the ocean?')
      .reply({ text: LONG, tokensPerSecond: 8 }, 'The ocean is deep.');
    const output = join(dir, 'heard.wav');
    const hark = await startWebHark(['run', '--input', input, '--web', '-o', output], {
      HARK_SERVICE_BASE_URL: sim.url,
      HARK_API_KEY: sim.apiKey,
    });
    const { page, errors } = await watchedPage(browser);
    let exit: number | null | undefined;
    let playedMs = 0;
    try {
      await page.goto(hark.url);
      await page.locator('#link[data-link="live"]').waitFor();

      // The first reply, cut where the user talked over it: what was heard, the mark, the rest struck out.
      const cut = page.locator('li.turn[data-interrupted="speech"]');
      await cut.waitFor({ timeout: 20_000 });
      await expect.poll(() => cut.locator('.you').textContent()).toBe('you: Tell me about the tallest mountain.');
      expect(await cut.locator('.cut').textContent()).toBe('✂ interrupted (speech)');
      const heard = (await cut.locator('.heard').textContent()) ?? '';
      const unheard = (await cut.locator('.unheard').textContent()) ?? '';
      expect(heard.length).toBeGreaterThan(0);
      expect(LONG.startsWith(heard)).toBe(true);
      // What was written of the reply before the cut, and never heard, follows it.
      expect(LONG.startsWith(`${heard} ${unheard}`.trim())).toBe(true);

      // The next turn: transcript, reply, and the waterfall of its latencies.
      const next = page.locator('li.turn[data-interrupted="false"]');
      await next.waitFor({ timeout: 20_000 });
      expect(await next.locator('.you').textContent()).toBe('you: Stop, what about the ocean?');
      expect(await next.locator('.heard').textContent()).toBe('The ocean is deep.');
      await expect.poll(() => page.locator('#waterfall-turn').textContent()).toBe('#2');
      const rows = await page.locator('#waterfall .step').all();
      const steps = await Promise.all(rows.map((row) => row.getAttribute('data-step')));
      expect(steps).toEqual([
        'endpointing',
        'transcript',
        'firstToken',
        'firstSentence',
        'firstAudioByte',
        'firstSamplePlayed',
      ]);
      expect(await page.locator('#medians tbody tr').count()).toBeGreaterThanOrEqual(5);
      expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);

      // The microphone meter moved with the speech in the file.
      const levels = await page.evaluate<number[]>('window.levels');
      expect(levels.length).toBeGreaterThan(20);
      expect(Math.max(...levels)).toBeGreaterThan(-50);
      expect(Math.min(...levels)).toBeLessThan(-80);
      await hark.line('web.staying');
      // The input has ended: the page no longer says hark listens, and neither does its API.
      await expect.poll(() => page.locator('#state').textContent()).toBe('input ended');
      const ended = (await (await fetch(`${hark.url}api/state`)).json()) as { state: string };
      expect(ended.state).toBe('input ended');
      await screenshot(page, 'turns');

      // The voice test says the sample through the configured voice and player.
      await page.locator('#voice-button').click();
      const result = page.locator('#voice-result[data-played-ms]');
      await result.waitFor({ timeout: 20_000 });
      playedMs = Number(await result.getAttribute('data-played-ms'));
      expect(playedMs).toBeGreaterThan(1000);
      expect(await page.locator('li.event.voice-test').textContent()).toContain(VOICE_SAMPLE);
      await screenshot(page, 'voice-test');

      // Muted from the page: the badge shows, and the state says so to every client.
      await page.locator('#mute-button').click();
      await page.locator('#muted-badge').waitFor();
      expect(await page.locator('#mute-button').getAttribute('aria-pressed')).toBe('true');
      const state = (await (await fetch(`${hark.url}api/state`)).json()) as { muted: boolean };
      expect(state.muted).toBe(true);
      expect(errors).toEqual([]);
      await page.close();
    } finally {
      exit = await hark.stop();
    }
    expect(exit).toBe(0);
    const speech = sim.requestsTo('speech').map((r) => (r.body as { input: string }).input);
    expect(speech.at(-1)).toBe(VOICE_SAMPLE);
    // The voice test's audio is at the end of what the player wrote: not silence.
    const { pcm, sampleRateHz } = readPcm16Mono(readFileSync(output));
    const samples = new Int16Array(pcm.buffer, pcm.byteOffset, pcm.length / 2);
    const tail = samples.subarray(samples.length - Math.round((playedMs * sampleRateHz) / 1000));
    expect(rms(tail)).toBeGreaterThan(100);
  });
});

describe('the status page on a phone, watching a run whose player cannot play', () => {
  it('fits 390 px without scrolling sideways, says there is nothing yet, then shows the failures plainly in the conversation', async () => {
    const clip = { path: UTTERANCE, fromMs: 300, toMs: 1800 };
    const input = await composeWav([1500, clip, 1500]);
    // A stand-in of its own: what the test before left in its script does not reach this one.
    const service = await startSim({ timing: FAST_TIMING });
    service.script.transcript('What time is it?').reply('It is noon.');
    const hark = await startWebHark(['run', '--input', input, '--web'], {
      HARK_SERVICE_BASE_URL: service.url,
      HARK_API_KEY: service.apiKey,
      HARK_AUDIO_PLAYER: 'command',
      HARK_AUDIO_PLAYER_COMMAND: 'sh -c "echo audio open error: No such device >&2; exit 1"',
    });
    const { page, errors } = await watchedPage(browser, PHONE);
    let exit: number | null | undefined;
    try {
      await page.goto(hark.url);
      await page.locator('#link[data-link="live"]').waitFor();
      // Before any turn: a line saying there is nothing yet, not an empty chart.
      expect(await page.locator('#chart-empty').isVisible()).toBe(true);
      expect(await page.locator('#chart').isVisible()).toBe(false);
      expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
      await screenshot(page, 'phone-empty');

      // The turn hark could not play: failed, plainly, with the fix, and no first sound.
      const turn = page.locator('li.turn[data-failed="playback"]');
      await turn.waitFor({ timeout: 20_000 });
      expect(await turn.locator('.failed').textContent()).toBe(
        'hark could not play its reply: you heard nothing of what is struck out: sh exited with 1: audio open error: No such device',
      );
      expect(await turn.locator('.fix').textContent()).toMatch(/^fix: list the output devices with `hark devices`/);
      expect(await turn.locator('.heard').textContent()).toBe('');
      expect(await turn.locator('.unheard').textContent()).toBe('It is noon.');
      expect(await turn.locator('.meta').textContent()).toBe('#1');

      await hark.line('web.staying');
      await expect.poll(() => page.locator('#state').textContent()).toBe('input ended');
      // The chart's legend names its lines, without a value nobody asked for.
      await page.locator('#chart canvas').first().waitFor();
      const legend = (await page.locator('#chart .u-legend').textContent()) ?? '';
      expect(legend).toContain('transcript');
      expect(legend).not.toContain('--');

      // A voice test that cannot play says so in the conversation, not only in the log.
      await page.locator('#voice-button').click();
      const failedTest = page.locator('li.event.voice-test.failed');
      await failedTest.waitFor({ timeout: 20_000 });
      expect(await failedTest.locator('.failed').textContent()).toMatch(
        /^voice test “Hello! This is how I sound\. Do you like my voice\?” failed: playback failed: sh exited with 1/,
      );
      expect(await failedTest.locator('.fix').textContent()).toMatch(/hark devices/);

      // Everything open, the page still fits the phone.
      for (const panel of ['config-panel', 'doctor-panel', 'log-panel'])
        await page.locator(`#${panel} summary`).click();
      await page.locator('#doctor tr.check').first().waitFor({ timeout: 20_000 });
      expect(await sidewaysScroll(page)).toBeLessThanOrEqual(0);
      await screenshot(page, 'phone-failed');
      // The one error Chromium logs is the voice test's answer: it failed.
      expect(errors).toEqual([expect.stringContaining('status of 500 (Internal Server Error) (http://127.0.0.1:')]);
      expect(errors[0]).toMatch(/\/api\/voice-test\)$/);
      await page.close();
    } finally {
      exit = await hark.stop();
      await service.close();
    }
    // Nothing it said could be played.
    expect(exit).toBe(1);
  });
});
