import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVoiceLoop } from '../../src/app/compose/voice-loop.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createService } from '../../src/service/index.js';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { createMemoryLogger } from '../../src/system/logger.js';
import { HARK, cleanEnv, runHark } from '../helpers/cli.js';
import { readWavInfo } from '../../src/audio/wav-header.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';
import { startWebHark } from '../helpers/web.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-web-'));
const TOKEN = 'e2e-page-token-4c07d9a1b2';
let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ timing: FAST_TIMING });
});
afterAll(() => sim.close());

const service = (): Record<string, string> => ({ HARK_SERVICE_BASE_URL: sim.url, HARK_API_KEY: sim.apiKey });

describe('the status page, served by hark run', () => {
  it('on an address other machines reach, without a token, hark refuses to start', async () => {
    const result = await runHark(['run', '--input', UTTERANCE, '--web', '-o', join(dir, 'refused.wav')], {
      env: cleanEnv({ ...service(), HARK_WEB_LISTEN: '0.0.0.0:0' }),
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/web\.listen: 0\.0\.0\.0:0 can be reached from other machines.*set HARK_WEB_TOKEN/);
    expect(result.stdout).not.toMatch(/hark\.listening/);
  });

  it('run --web whose port is taken fails at once, naming the port and what holds it', async () => {
    const holder = createServer();
    const port = await new Promise<number>((resolve) =>
      holder.listen(0, '127.0.0.1', () => resolve((holder.address() as AddressInfo).port)),
    );
    try {
      const result = await runHark(['run', '--input', UTTERANCE, '--web', '-o', join(dir, 'taken.wav')], {
        env: cleanEnv({ ...service(), HARK_WEB_LISTEN: `127.0.0.1:${port}` }),
      });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `hark: --web: the status page cannot listen: port ${port} is taken by node (pid ${process.pid}) (127.0.0.1:${port}); ` +
          'set web.listen to a free address (HARK_WEB_LISTEN=127.0.0.1:8791)\n',
      );
      expect(result.stdout).not.toMatch(/hark\.listening/);
    } finally {
      holder.close();
    }
  });

  it('run --input --web: the turn is in /api/turns and /api/state, and the page stays up until Ctrl-C', async () => {
    sim.script.transcript('What is the tallest mountain?').reply('It is Mount Everest. It is very high.');
    const hark = await startWebHark(
      ['run', '--input', UTTERANCE, '--fast', '--web', '-o', join(dir, 'run.wav')],
      service(),
    );
    try {
      await hark.line('web.staying');
      const { turns, stats } = (await (await fetch(`${hark.url}api/turns`)).json()) as {
        turns: { transcript: string; reply: string; latencyMs: Record<string, number> }[];
        stats: Record<string, { median: number }>;
      };
      expect(turns).toHaveLength(1);
      expect(turns[0]).toMatchObject({
        transcript: 'What is the tallest mountain?',
        reply: 'It is Mount Everest. It is very high.',
      });
      expect(Object.keys(turns[0]?.latencyMs ?? {})).toEqual(
        expect.arrayContaining(['transcript', 'firstToken', 'firstSentence', 'firstAudioByte', 'firstSamplePlayed']),
      );
      expect(stats.firstSamplePlayed?.median).toBeGreaterThan(0);
      const state = (await (await fetch(`${hark.url}api/state`)).json()) as { state: string; conversation: unknown[] };
      // The file has been heard to its end: hark listens to nothing now, and the page says so.
      expect(state.state).toBe('input ended');
      expect(state.conversation).toHaveLength(1);
    } finally {
      expect(await hark.stop()).toBe(0);
    }
  });

  it("a turn's tool calls are in the conversation, before the turn they belong to", async () => {
    sim.script
      .transcript('What time is it?')
      .reply({ text: 'Let me look.', toolCall: { name: 'get_time', arguments: {} } }, 'It is time for tea.');
    const hark = await startWebHark(
      ['run', '--input', UTTERANCE, '--fast', '--web', '-o', join(dir, 'tools.wav')],
      service(),
    );
    try {
      await hark.line('web.staying');
      const { conversation } = (await (await fetch(`${hark.url}api/state`)).json()) as {
        conversation: {
          kind: string;
          event?: { type: string; name?: string; phase?: string };
          turn?: { reply: string };
        }[];
      };
      expect(
        conversation.map((entry) => (entry.kind === 'turn' ? 'turn' : `${entry.event?.name} ${entry.event?.phase}`)),
      ).toEqual(['get_time started', 'get_time finished', 'turn']);
      expect(conversation[2]?.turn?.reply).toBe('Let me look. It is time for tea.');
    } finally {
      expect(await hark.stop()).toBe(0);
    }
  });

  it('with a token, off loopback: 401 for a wrong one; no response carries the token or the API key', async () => {
    const hark = await startWebHark(['run', '--input', UTTERANCE, '--fast', '--web', '-o', join(dir, 'lan.wav')], {
      ...service(),
      HARK_WEB_LISTEN: '0.0.0.0:0',
      HARK_WEB_TOKEN: TOKEN,
    });
    try {
      await hark.line('web.staying');
      expect((await fetch(`${hark.url}api/state`)).status).toBe(401);
      expect((await fetch(`${hark.url}api/state?token=not-the-token-at-all`)).status).toBe(401);
      const wrong = await fetch(`${hark.url}`, { headers: { Authorization: 'Bearer not-the-token-at-all' } });
      expect(wrong.status).toBe(401);
      const auth = { Authorization: `Bearer ${TOKEN}` };
      // uPlot comes from the package root (node_modules), found from the bundled entry too.
      for (const path of [
        '',
        'app.js',
        'vendor/uPlot.iife.min.js',
        'api/state',
        'api/turns',
        'api/config',
        'api/doctor',
        'api/log',
      ]) {
        // The doctor spends (a chat request, a model load): it is a POST, as the page sends it.
        const post = path === 'api/doctor';
        const response = await fetch(`${hark.url}${path}`, {
          method: post ? 'POST' : 'GET',
          headers: post ? { ...auth, 'Content-Type': 'application/json' } : auth,
          body: post ? '{}' : undefined,
        });
        expect(response.status, path).toBe(200);
        const everything = JSON.stringify([...response.headers]) + (await response.text());
        expect(everything, path).not.toContain(TOKEN);
        expect(everything, path).not.toContain(sim.apiKey);
      }
      const config = (await (await fetch(`${hark.url}api/config`, { headers: auth })).json()) as {
        secrets: Record<string, string>;
      };
      expect(config.secrets).toEqual({ apiKey: 'set (not shown)', webToken: 'set (not shown)' });
    } finally {
      expect(await hark.stop()).toBe(0);
    }
  });
});

describe('hark demo --web', () => {
  it('says where the page is, shows the demo turn there, and keeps it up until Ctrl-C', async () => {
    const output = join(dir, 'demo.wav');
    const child = spawn(process.execPath, [HARK, 'demo', '--web', '-o', output], {
      env: cleanEnv({ HARK_WEB_LISTEN: '127.0.0.1:0' }),
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const staying = new Promise<string>((resolve) =>
      child.stderr.on('data', (d: Buffer) => {
        stderr += d.toString();
        const url = /the status page stays up at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(stderr)?.[1];
        if (url) resolve(url);
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    const url = await Promise.race([staying, exited.then((code) => `exited ${String(code)}: ${stderr}`)]);
    expect(stderr).toMatch(/the status page is at http:\/\/127\.0\.0\.1:\d+\/: open it now/);
    const { turns } = (await (await fetch(`${url}api/turns`)).json()) as { turns: { transcript: string }[] };
    expect(turns.map((t) => t.transcript)).toEqual([
      readFileSync(join(import.meta.dirname, '../../assets/demo/question.txt'), 'utf8').trim(),
    ]);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stdout).toContain(`the spoken reply is in ${output}`);
    expect(readWavInfo(readFileSync(output)).durationMs).toBeGreaterThan(1000);
  });
});

describe("the page's controls on the real voice loop", () => {
  it('muted, hark hears silence: nothing it hears is sent; unmuted, it hears again', async () => {
    const config = defaultConfig();
    config.wake.engine = 'none';
    const logger = createMemoryLogger('debug');
    const service = createService(config, { baseUrl: sim.url, apiKey: sim.apiKey }, logger);
    const before = sim.requestsTo('transcription').length;
    const run = async (muted: boolean): Promise<number> => {
      const loop = await startVoiceLoop(config, service, logger, {
        input: UTTERANCE,
        output: join(dir, `muted-${String(muted)}.wav`),
        fast: true,
      });
      loop.mute(muted);
      await loop.done;
      await loop.stop();
      return sim.requestsTo('transcription').length;
    };
    try {
      expect(await run(true)).toBe(before);
      expect(await run(false)).toBe(before + 1);
    } finally {
      await service.close();
    }
  });
});
