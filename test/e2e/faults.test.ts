/** What a user sees when hark is called wrongly or handed something odd: clear words, the right exit code, no secret. */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HARK, cleanEnv, runHark } from '../helpers/cli.js';
import { misbehavingServer, sseHeaders, type Handler } from '../helpers/misbehaving-server.js';
import { MONOLOGUE, UTTERANCE } from '../helpers/speech.js';
import { EARCON_DIR } from '../../src/audio/earcons.js';
import { bufferOf, resample, samplesOf } from '../../src/audio/pcm.js';
import { readWavInfo } from '../../src/audio/wav-header.js';
import { defaultConfig } from '../../src/config/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-faults-'));

describe('usage mistakes exit 2, as the README says', () => {
  it.each([
    ['an unknown command', ['frobnicate']],
    ['an unknown option', ['--frobnicate', 'models']],
    ['say without -o', ['--sim', 'say', 'hello']],
    ['chat without words', ['--sim', 'chat']],
    ['transcribe of a file that does not exist', ['--sim', 'transcribe', join(dir, 'missing.wav')]],
  ])('%s', async (_what, args) => {
    const result = await runHark(args);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toBe('');
  });

  it('transcribe of a directory says so, naming it', async () => {
    const folder = join(dir, 'recordings');
    mkdirSync(folder);
    const result = await runHark(['--sim', 'transcribe', folder]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`hark: ${folder}: is a directory, not an audio file\n`);
  });
});

describe('hark sim and the user key', () => {
  it('never adopts or prints the HARK_API_KEY of the environment; it makes its own', async () => {
    const userKey = 'hk-user-real-key-8c1d2e3f4a5b';
    const child = spawn(process.execPath, [HARK, 'sim', '--port', '0'], { env: cleanEnv({ HARK_API_KEY: userKey }) });
    const banner = await new Promise<string>((resolve) => {
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('try:')) resolve(text);
      });
    });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
    const printed = /key: (\S+)/.exec(banner)?.[1] ?? '';
    try {
      expect(banner).not.toContain(userKey);
      expect(printed).toMatch(/^sim-/);
      const withUserKey = await runHark(['chat', 'ping'], {
        env: cleanEnv({ HARK_SERVICE_BASE_URL: url, HARK_API_KEY: userKey }),
      });
      expect(withUserKey.code).toBe(1);
      // The refusal, and what to do about it.
      expect(withUserKey.stderr).toMatch(
        /^hark: chat: HTTP 401 authentication_error: .*; check the API key: HARK_API_KEY, or the systemd credential hark-api-key/,
      );
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('close', resolve));
    }
  });

  it('takes --key, and does not print a key it did not make', async () => {
    const child = spawn(process.execPath, [HARK, 'sim', '--port', '0', '--key', 'given-key-123456'], {
      env: cleanEnv(),
    });
    const banner = await new Promise<string>((resolve) => {
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('try:')) resolve(text);
      });
    });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1] ?? '';
    try {
      expect(banner).not.toContain('given-key-123456');
      const result = await runHark(['chat', 'ping'], {
        env: cleanEnv({ HARK_SERVICE_BASE_URL: url, HARK_API_KEY: 'given-key-123456' }),
      });
      expect(result.stdout).toMatch(/You said: ping\./);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('close', resolve));
    }
  });
});

describe('config show', () => {
  it('masks the user name and password of a base URL with credentials', async () => {
    const result = await runHark(['config', 'show'], {
      env: cleanEnv({ HARK_SERVICE_BASE_URL: 'https://hark:pa55-w0rd-xyz@proxy.example/api' }),
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('baseUrl: https://***:***@proxy.example/api');
    expect(result.stdout).not.toContain('pa55-w0rd-xyz');
  });
});

/** Runs hark against a misbehaving server written here, with retries off so each fault shows at once. */
async function againstServer(
  handler: Handler,
  args: string[],
  extraEnv: Record<string, string> = {},
  started?: (child: ChildProcess) => void,
) {
  const server = await misbehavingServer(handler);
  try {
    const env = cleanEnv({
      HARK_SERVICE_BASE_URL: server.url,
      HARK_API_KEY: 'hk-e2e-faults-0123456789',
      HARK_SERVICE_RETRY_MAX_RETRIES: '0',
      // The recording says no wake word.
      HARK_WAKE_ENGINE: 'none',
      ...extraEnv,
    });
    return { ...(await runHark(args, { env, started })), requests: server.requests };
  } finally {
    await server.close();
  }
}

describe('say never leaves a wrong or cut file', () => {
  it('a web page where MP3 was asked for fails, and writes nothing', async () => {
    const out = join(dir, 'portal.mp3');
    const result = await againstServer(
      (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html><title>Sign in to the hotel network</title></html>');
      },
      ['say', 'Hello there.', '-o', out],
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /the service answered with text\/html, not audio\/mpeg \("Sign in to the hotel network"\)/,
    );
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((name) => name.includes('portal'))).toEqual([]);
  });

  it('Ctrl-C while the speech streams in leaves the earlier file as it was, and nothing beside it', async () => {
    const out = join(dir, 'stopped.wav');
    writeFileSync(out, 'the take before');
    let hark: ChildProcess | undefined;
    const result = await againstServer(
      (_req, res) => {
        sseHeaders(res);
        const delta = JSON.stringify({ type: 'speech.audio.delta', audio: Buffer.alloc(3200).toString('base64') });
        // Half the speech is in when the user presses Ctrl-C; the rest never comes.
        res.write(`data: ${delta}\n\n`, () => hark?.kill('SIGINT'));
      },
      ['say', 'Hello there.', '-o', out],
      {},
      (child) => (hark = child),
    );
    expect(result.code).toBe(130);
    expect(readFileSync(out, 'utf8')).toBe('the take before');
    expect(readdirSync(dir).filter((name) => name.includes('stopped'))).toEqual(['stopped.wav']);
  });

  it('a speech stream that breaks off leaves the earlier file as it was', async () => {
    const out = join(dir, 'earlier.wav');
    writeFileSync(out, 'the earlier take');
    const result = await againstServer(
      (_req, res) => {
        sseHeaders(res);
        const delta = JSON.stringify({ type: 'speech.audio.delta', audio: Buffer.alloc(3200).toString('base64') });
        res.write(`data: ${delta}\n\ndata: ${delta}\n\n`, () => res.destroy());
      },
      ['say', 'Hello there.', '-o', out],
    );
    expect(result.code).toBe(1);
    expect(readFileSync(out, 'utf8')).toBe('the earlier take');
    expect(readdirSync(dir).filter((name) => name.includes('earlier'))).toEqual(['earlier.wav']);
  });
});

describe('transcribe of a long file keeps what it could do', () => {
  // The second of the monologue's three chunks fails for good; the first and third do not.
  const flaky: Handler = (_req, res) => {
    const n = flakyCount++;
    if (n === 1) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'engine fell over', type: 'server_error' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ text: `words of chunk ${n + 1}.` }));
  };
  let flakyCount = 0;

  it('prints the text with the gap marked, and exits non-zero', async () => {
    flakyCount = 0;
    const result = await againstServer(flaky, ['transcribe', MONOLOGUE]);
    expect(result.stdout).toBe(
      'words of chunk 1. [… 0:16–0:46 not transcribed: transcription: HTTP 500 server_error: engine fell over] words of chunk 3.\n',
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/1 of 3 chunks not transcribed/);
    expect(result.requests).toHaveLength(3);
  });

  it('Ctrl-C prints what was transcribed so far, the rest marked, and exits 130', async () => {
    flakyCount = 0;
    let hark: ChildProcess | undefined;
    const result = await againstServer(
      (_req, res) => {
        if (flakyCount++ === 0) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ text: 'words of chunk 1.' }));
        }
        // The second chunk is still being transcribed when the user presses Ctrl-C.
        hark?.kill('SIGINT');
      },
      ['transcribe', MONOLOGUE],
      {},
      (child) => (hark = child),
    );
    expect(result.stdout).toBe('words of chunk 1. [… 0:16–1:11 not transcribed: stopped]\n');
    expect(result.stderr).toMatch(/hark: stopped; what was transcribed is printed/);
    expect(result.code).toBe(130);
  });

  it('--json gives each chunk its time range and status', async () => {
    flakyCount = 0;
    const result = await againstServer(flaky, ['transcribe', '--json', MONOLOGUE]);
    expect(result.code).toBe(1);
    const parsed = JSON.parse(result.stdout) as {
      complete: boolean;
      chunks: { from: string; to: string; status: string; error?: string }[];
    };
    expect(parsed.complete).toBe(false);
    expect(parsed.chunks.map(({ from, to, status }) => [from, to, status])).toEqual([
      ['0:00', '0:16', 'ok'],
      ['0:16', '0:46', 'failed'],
      ['0:46', '1:11', 'ok'],
    ]);
    expect(parsed.chunks[1]?.error).toMatch(/engine fell over/);
  });
});

describe('a failed turn in the voice loop (run --input --fast)', () => {
  /** The error earcon as the player gets it, to find in what hark would have played. */
  const errorEarcon = (() => {
    const wav = readFileSync(join(EARCON_DIR, 'error.wav'));
    const info = readWavInfo(wav);
    const samples = samplesOf(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes));
    return bufferOf(resample(samples, info.sampleRateHz, defaultConfig().speech.sampleRateHz));
  })();
  const transcribed = (res: Parameters<Handler>[1]) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ text: 'What is the weather like?' }));
  };
  const turnLines = (stdout: string) =>
    stdout
      .split('\n')
      .filter((line) => line.includes('"event":"turn"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  it('a reply stream of keep-alives fails after streamIdleMs: error earcon, an error turn line, and the run ends', async () => {
    const out = join(dir, 'keep-alive-reply.wav');
    const result = await againstServer(
      (req, res) => {
        if (req.url?.includes('transcriptions')) return transcribed(res);
        sseHeaders(res);
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Let me see' } }] })}\n\n`);
        const timer = setInterval(() => res.write(': keep-alive\n\n'), 50);
        res.on('close', () => clearInterval(timer));
      },
      ['run', '--input', UTTERANCE, '--fast', '-o', out],
      { HARK_SERVICE_TIMEOUTS_STREAM_IDLE_MS: '1000' },
    );
    expect(result.code).toBe(0);
    const [turn] = turnLines(result.stdout);
    expect(turn).toMatchObject({ level: 'error', stage: 'reply', interrupted: false });
    expect(JSON.stringify(turn?.error)).toMatch(/stream_idle_timeout: no content for 1000 ms, only keep-alives/);
    expect(readFileSync(out).indexOf(errorEarcon)).toBeGreaterThan(0);
  }, 30_000);

  it('a speech endpoint that answers with a web page: the line names the synthesis stage', async () => {
    const out = join(dir, 'portal-speech.wav');
    const result = await againstServer(
      (req, res) => {
        if (req.url?.includes('transcriptions')) return transcribed(res);
        if (req.url?.includes('speech')) {
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('<title>Portal</title>');
        }
        sseHeaders(res);
        res.end(
          `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Sunny.' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
        );
      },
      ['run', '--input', UTTERANCE, '--fast', '-o', out],
    );
    expect(result.code).toBe(0);
    const [turn] = turnLines(result.stdout);
    expect(turn).toMatchObject({ level: 'error', stage: 'synthesis' });
    expect(JSON.stringify(turn?.error)).toMatch(/the service answered with text\/html, not text\/event-stream/);
    expect(readFileSync(out).indexOf(errorEarcon)).toBeGreaterThan(0);
  }, 30_000);
});
