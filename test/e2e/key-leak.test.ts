/**
 * The API key never leaves: every command runs with a distinctive key against a server that
 * echoes it back everywhere it can (headers, short and long bodies, stream frames, error
 * events, web pages), and nothing hark prints, logs, serves on its page, or hands a child
 * process (environment or arguments) holds any ten characters of it. So for a key holding `"`
 * and `\` (escaped wherever it is written as JSON), and for an MCP server's URL with a user
 * name, a password and a query secret. The children are stand-ins first on PATH that record
 * their argv and environment, then do the real work where there is any.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HARK, cleanEnv, runHark, type RunResult } from '../helpers/cli.js';
import { startWebHark } from '../helpers/web.js';
import { ffmpegPath } from '../../src/audio/ffmpeg.js';
import { misbehavingServer, sseHeaders, type MisbehavingServer } from '../helpers/misbehaving-server.js';
import { MONOLOGUE, UTTERANCE } from '../helpers/speech.js';

const KEY = 'hk-LEAKCANARY-Z9x8W7v6U5t4S3r2Q1p0';
const dir = mkdtempSync(join(tmpdir(), 'hark-key-leak-'));
const bin = join(dir, 'bin');
const childLog = join(dir, 'children.log');

/** A key holding the two characters JSON escapes. */
const QUOTED_KEY = 'hk-QUOTE"CANARY\\Y8x7W6v5U4t3S2r1';
const MCP_USER = 'mcp-USERCANARY-9k8j7';
const MCP_PASSWORD = 'mcp-PASSCANARY-7h6g5f4e';
const MCP_QUERY = 'mcp-QUERYCANARY-3d2c1b0a';
/** What a `user:password@` becomes on the wire: Basic authorization. */
const MCP_BASIC = Buffer.from(`${MCP_USER}:${MCP_PASSWORD}`).toString('base64');
const SECRETS = [KEY, QUOTED_KEY, MCP_USER, MCP_PASSWORD, MCP_QUERY, MCP_BASIC];

/**
 * Any ten characters in a row of a secret, as written or escaped as JSON: catches it whole, cut,
 * or split across lines.
 */
function leaksIn(text: string): string[] {
  const found = new Set<string>();
  for (const secret of SECRETS) {
    for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
      for (let at = 0; at + 10 <= form.length; at++) {
        if (text.includes(form.slice(at, at + 10))) found.add(form.slice(at, at + 10));
      }
    }
  }
  return [...found];
}

/** A child stand-in: writes its name, argv and environment to the log, then runs `then`. */
function fakeBinary(name: string, then: string): void {
  const path = join(bin, name);
  writeFileSync(path, `#!/bin/sh\n{ echo "=== ${name} $*"; env; } >> '${childLog}'\n${then}\n`);
  chmodSync(path, 0o755);
}

/** The full path of a program on the PATH hark's tests were started with ('' when absent). */
function installed(name: string): string {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
}

const keyOf = (headers: Record<string, string | string[] | undefined>): string =>
  String(headers['x-api-key'] ?? String(headers.authorization ?? '').replace(/^Bearer /, ''));

/** An SSE event that is the key's worth of trouble: a delta carrying the key, split in two frames. */
function chatFrames(res: ServerResponse, key: string): void {
  const delta = (text: string) => `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text } }] })}\n\n`;
  res.write(delta(`Your key is ${key.slice(0, 12)}`));
  res.write(delta(`${key.slice(12)}, and again ${key}. Done.`));
  res.end(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
}

/** Chooses a misbehaviour from what the client asked, echoing the key in each; counts the requests that carried one. */
function echo(server: { chunks: number; keyed: number }) {
  return (
    req: { url?: string | undefined; body: string; headers: Record<string, string | string[] | undefined> },
    res: ServerResponse,
  ) => {
    const key = keyOf(req.headers);
    if (key === KEY || key === QUOTED_KEY) server.keyed++;
    const headers = { 'x-request-id': key, 'x-echo': `key=${key}` };
    const ask = req.body;
    if (req.url?.startsWith('/mcp')) {
      // An MCP server that refuses, quoting back what it was sent.
      res.writeHead(401, { 'content-type': 'text/plain', 'x-echo': `${req.url} ${String(req.headers.authorization)}` });
      return res.end(`no entry for ${req.url} with ${String(req.headers.authorization)}`);
    }
    if (req.url?.includes('transcriptions')) {
      // Every second chunk of a long file fails with a long page that ends in the key.
      if (ask.includes('filename="chunk.wav"') && server.chunks++ % 2 === 1) {
        res.writeHead(500, { 'content-type': 'text/plain', ...headers });
        return res.end(`${'x'.repeat(490)}${key} and more of a long error page`);
      }
      res.writeHead(200, { 'content-type': 'application/json', ...headers });
      return res.end(JSON.stringify({ text: `I heard ${key} clearly.` }));
    }
    if (req.url?.includes('speech')) {
      if (ask.includes('"response_format":"mp3"')) {
        res.writeHead(200, { 'content-type': 'text/html', ...headers });
        return res.end(`<html><title>Login ${key}</title><body>${'y'.repeat(3000)}${key}</body></html>`);
      }
      sseHeaders(res, headers);
      return res.end(
        `data: ${JSON.stringify({ type: 'error', error: { type: 'invalid_key', message: `bad key ${key}` } })}\n\n`,
      );
    }
    if (ask.includes('long-body')) {
      res.writeHead(503, { 'content-type': 'text/plain', ...headers });
      return res.end(`${'z'.repeat(490)}${key}`);
    }
    if (ask.includes('malformed')) {
      sseHeaders(res, headers);
      return res.end(`data: ${'m'.repeat(60)}${key}\n\n`);
    }
    if (ask.includes('error-event')) {
      sseHeaders(res, headers);
      res.write(`event: message_start\ndata: {"type":"message_start","message":{}}\n\n`);
      return res.end(
        `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: `${'o'.repeat(200)} ${key}` } })}\n\n`,
      );
    }
    if (ask.includes('portal')) {
      res.writeHead(200, { 'content-type': 'text/html', ...headers });
      return res.end(`<title>${key}</title>`);
    }
    sseHeaders(res, headers);
    chatFrames(res, key);
  };
}

let server: MisbehavingServer;
const seenByServer = { chunks: 0, keyed: 0 };

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cleanEnv({
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    HARK_FFMPEG: join(bin, 'ffmpeg'),
    HARK_SERVICE_BASE_URL: server.url,
    HARK_SERVICE_RETRY_MAX_RETRIES: '0',
    HARK_API_KEY: KEY,
    ...extra,
  });
}

/** What the stand-ins wrote to the children's log from byte `from` on. */
function childrenSince(from: number): string {
  return existsSync(childLog) ? readFileSync(childLog).subarray(from).toString('utf8') : '';
}

interface Seen {
  /** What the stand-ins for the child processes started meanwhile were given: argv and environment. */
  children: string;
  /** Requests that reached the service with a key. */
  keyed: number;
}

/**
 * Runs `act`, which gives back what it saw hark print, serve or log; then expects no secret in
 * any of it, nor in the argv or environment of a child process started meanwhile.
 */
async function leakFree(act: () => Promise<{ what: string; text: string }[]>): Promise<Seen> {
  const childrenFrom = existsSync(childLog) ? statSync(childLog).size : 0;
  const keyedFrom = seenByServer.keyed;
  const outputs = await act();
  const children = childrenSince(childrenFrom);
  expect(children).not.toMatch(/HARK_API_KEY|CREDENTIALS_DIRECTORY/);
  const leaks = [...outputs, { what: 'child argv and environment', text: children }]
    .map(({ what, text }) => ({ what, leaked: leaksIn(text) }))
    .filter(({ leaked }) => leaked.length > 0);
  expect(leaks).toEqual([]);
  return { children, keyed: seenByServer.keyed - keyedFrom };
}

/** Runs a hark command with the key set (and `extra`), expecting no secret in what it prints or hands a child. */
async function hark(args: string[], extra: Record<string, string> = {}): Promise<RunResult & Seen> {
  let result: RunResult | undefined;
  const seen = await leakFree(async () => {
    result = await runHark(['--log-level', 'debug', ...args], { env: env(extra), timeoutMs: 40_000 });
    return [
      { what: `${args.join(' ')}: stdout`, text: result.stdout },
      { what: `${args.join(' ')}: stderr`, text: result.stderr },
    ];
  });
  return { ...(result as RunResult), ...seen };
}

beforeAll(async () => {
  mkdirSync(bin);
  // Each stand-in runs the real program by its full path (the stand-in itself is first on PATH).
  const ffmpeg = ffmpegPath().includes('/') ? ffmpegPath() : installed('ffmpeg');
  fakeBinary('ffmpeg', `exec '${ffmpeg}' "$@"`);
  fakeBinary('arecord', 'echo "arecord: main:850: audio open error: No such device" >&2; exit 1');
  fakeBinary('aplay', 'echo "**** List of PLAYBACK Hardware Devices ****"; exit 0');
  const espeak = installed('espeak-ng');
  fakeBinary('espeak-ng', espeak ? `exec '${espeak}' "$@"` : 'exit 1');
  server = await misbehavingServer(echo(seenByServer));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the API key never leaves hark: not in what it prints or logs, nor in a child process', () => {
  it.each([
    ['chat (key in stream frames)', ['chat', 'say it back']],
    ['chat --api messages (error event)', ['chat', '--api', 'messages', 'error-event']],
    ['chat (long error body)', ['chat', 'long-body']],
    ['chat (malformed frame)', ['chat', 'malformed']],
    ['chat (web page)', ['chat', '--no-stream', 'portal']],
  ])('%s', async (_, args) => {
    // The command reached the service with the key, and had it echoed back.
    expect((await hark(args)).keyed).toBeGreaterThan(0);
  });

  it('say, to an MP3 (a web page comes back) and to a WAV (an error event)', async () => {
    for (const file of ['a.mp3', 'a.wav']) {
      const said = await hark(['say', 'Hello.', '-o', join(dir, file)]);
      expect(said.code).toBe(1);
      expect(said.keyed).toBeGreaterThan(0);
    }
  });

  it('transcribe, of a long file (the key in a transcript and in a failed chunk) and --json', async () => {
    const plain = await hark(['transcribe', MONOLOGUE]);
    expect(plain.code).toBe(1);
    expect(plain.keyed).toBeGreaterThan(1);
    expect((await hark(['transcribe', '--json', MONOLOGUE])).keyed).toBeGreaterThan(1);
  });

  it('run --input, with the key as a systemd credential', async () => {
    const credentials = join(dir, 'credentials');
    mkdirSync(credentials, { recursive: true });
    writeFileSync(join(credentials, 'hark-api-key'), `${KEY}\n`);
    const result = await hark(['run', '--input', UTTERANCE, '--fast', '-o', join(dir, 'out.wav')], {
      HARK_API_KEY: '',
      CREDENTIALS_DIRECTORY: credentials,
      HARK_WAKE_ENGINE: 'none',
    });
    expect(result.stdout).toMatch(/"event":"turn"/);
    expect(result.keyed).toBeGreaterThan(0);
    // The stand-in decoded the input: a child that could have been handed the key.
    expect(result.children).toMatch(/^=== ffmpeg /m);
  });

  it('doctor', async () => {
    const doctor = await hark(['doctor'], { HARK_AUDIO_RECORDER: 'arecord' });
    // Its capture check and the device lists ran the stand-ins.
    expect(doctor.children).toMatch(/^=== arecord /m);
    expect(doctor.children).toMatch(/^=== aplay /m);
  });

  it('a config mistake that quotes the key back: pasted as a value, and through doctor', async () => {
    const pasted = join(dir, 'pasted.yaml');
    writeFileSync(pasted, `service:\n  authStyle: ${KEY}\n`);
    const run = await hark(['--config', pasted, 'run', '--input', UTTERANCE]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/service\.authStyle: must be one of "bearer", "x-api-key" \(got "\*\*\*"\)/);
    const doctor = await hark(['--config', pasted, 'doctor']);
    expect(doctor.stdout).toMatch(/service\.authStyle: must be one of/);
  });

  it('config show', async () => {
    const shown = await hark(['config', 'show']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/# API key: hk-\*\*\*p0/);
  });

  it('sim', async () => {
    let text = '';
    await leakFree(async () => {
      const child = spawn(process.execPath, [HARK, 'sim', '--port', '0'], { env: env() });
      await new Promise<void>((resolve) => {
        child.stdout.on('data', (d: Buffer) => {
          text += d.toString();
          if (text.includes('try:')) resolve();
        });
      });
      child.kill('SIGTERM');
      await new Promise((resolve) => child.on('close', resolve));
      return [{ what: 'sim stdout', text }];
    });
    expect(text).toContain('try:');
  });

  describe('a key holding `"` and `\\`, and an MCP server whose URL holds a user name, a password and a query secret', () => {
    const quoted = (): Record<string, string> => ({ HARK_API_KEY: QUOTED_KEY, HARK_CONFIG: mcpConfig() });
    let config: string | undefined;
    function mcpConfig(): string {
      if (config) return config;
      config = join(dir, 'mcp.yaml');
      const url = `${server.url.replace('http://', `http://${MCP_USER}:${MCP_PASSWORD}@`)}/mcp?key=${MCP_QUERY}&mode=full`;
      writeFileSync(config, `tools:\n  mcpServers:\n    - name: home\n      url: ${url}\n      allow: ["*"]\n`);
      return config;
    }
    /** Requests that reached the MCP server from `from` on. */
    const mcpRequestsSince = (from: number): number =>
      server.requests.slice(from).filter((r) => r.path.startsWith('/mcp')).length;

    it.each([
      ['chat, quoted key (key in stream frames)', ['chat', 'say it back'], 'service'],
      ['chat --api messages, quoted key (error event)', ['chat', '--api', 'messages', 'error-event'], 'service'],
      ['config show, MCP URL', ['config', 'show'], 'printed'],
      ['config check, MCP URL', ['config', 'check'], 'printed'],
      ['tools list, MCP server refusing', ['tools', 'list'], 'mcp'],
      ['doctor, quoted key', ['doctor'], 'printed'],
    ] as const)('%s', async (_, args, reaches) => {
      const requestsFrom = server.requests.length;
      const result = await hark([...args], quoted());
      // What makes the case: the key went to the service, the MCP server was asked, or the command printed its report.
      if (reaches === 'service') expect(result.keyed).toBeGreaterThan(0);
      if (reaches === 'mcp') expect(mcpRequestsSince(requestsFrom)).toBeGreaterThan(0);
      if (reaches === 'printed') expect(result.stdout.length).toBeGreaterThan(0);
    });

    it('run --input, the MCP server retried, and the status page: /api/config, /api/log, /api/state, /api/turns', async () => {
      const requestsFrom = server.requests.length;
      const seen = await leakFree(async () => {
        const outputs: { what: string; text: string }[] = [];
        const page = await startWebHark(['run', '--input', UTTERANCE, '--fast', '--web', '-o', join(dir, 'web.wav')], {
          PATH: `${bin}:${process.env.PATH ?? ''}`,
          HARK_FFMPEG: join(bin, 'ffmpeg'),
          HARK_SERVICE_BASE_URL: server.url,
          HARK_SERVICE_RETRY_MAX_RETRIES: '0',
          ...quoted(),
        });
        try {
          await page.line('web.staying');
          await page.line('mcp.reconnect');
          for (const path of ['config', 'log', 'state', 'turns']) {
            const response = await fetch(`${page.url}api/${path}`);
            outputs.push({
              what: `/api/${path}`,
              text: JSON.stringify([...response.headers]) + (await response.text()),
            });
          }
        } finally {
          await page.stop();
        }
        expect(page.lines.some((l) => l.event === 'mcp.unavailable')).toBe(true);
        return [...outputs, { what: 'run --web log', text: JSON.stringify(page.lines) }];
      });
      expect(seen.keyed).toBeGreaterThan(0);
      // The MCP server was reached, with the password as Basic authorization and the query as written.
      expect(server.requests.slice(requestsFrom).some((r) => r.path === `/mcp?key=${MCP_QUERY}&mode=full`)).toBe(true);
    });
  });
});
