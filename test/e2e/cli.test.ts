import { spawn } from 'node:child_process';
import { createServer, type AddressInfo } from 'node:net';
import { cpSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pcmToWav, readWavInfo } from '../../src/audio/wav-header.js';
import { runFfmpeg } from '../../src/audio/ffmpeg.js';
import { HARK, cleanEnv, runHark } from '../helpers/cli.js';
import { toneWav } from '../helpers/audio.js';
import { UTTERANCE } from '../helpers/speech.js';

/** A PNG of one red pixel. */
const ONE_PIXEL_PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

const dir = mkdtempSync(join(tmpdir(), 'hark-cli-'));

describe('hark CLI', () => {
  it('chat streams the reply to stdout (against the built-in stand-in)', async () => {
    const result = await runHark(['--sim', 'chat', 'what', 'is', 'hark?']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^You said: what is hark\? This is the stand-in service answering\./);
    expect(result.stderr).toBe('');
  });

  it('chat --api messages goes through the messages-style endpoint', async () => {
    const result = await runHark(['--sim', '--log-level', 'debug', 'chat', '--api', 'messages', 'hello']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/You said: hello\./);
    expect(result.stderr).toMatch(/"endpoint":"messages"/);
  });

  it('say writes a WAV of real speech', async () => {
    const out = join(dir, 'hello.wav');
    const result = await runHark(['--sim', 'say', 'Hello from the command line.', '-o', out, '--sample-rate', '16000']);
    expect(result.code).toBe(0);
    const info = readWavInfo(await readFile(out));
    expect(info.sampleRateHz).toBe(16000);
    expect(info.durationMs).toBeGreaterThan(800);
  });

  it('transcribe converts a non-WAV file and cuts one longer than 30 s into chunks', async () => {
    const ogg = join(dir, 'long.ogg');
    await runFfmpeg(['-f', 'wav', '-i', 'pipe:0', '-c:a', 'libopus', '-y', ogg], toneWav(65_000, 16000));
    const result = await runHark(['--sim', 'transcribe', '--json', ogg]);
    expect(result.code).toBe(0);
    const parsed = JSON.parse(result.stdout) as { text: string; parts: string[] };
    expect(parsed.parts.length).toBe(3);
    expect(parsed.text).toContain('seconds of audio');
  });

  it("a file or a name it cannot use is a usage mistake named before any work, and leaves the user's files as they were", async () => {
    const precious = join(dir, 'precious.wav');
    const recording = join(dir, 'recording.wav');
    writeFileSync(precious, "the user's own file");
    writeFileSync(recording, await readFile(UTTERANCE));
    writeFileSync(join(dir, 'notes.txt.wav'), 'some words, not a model');
    const headerOnly = join(dir, 'header.wav');
    writeFileSync(headerOnly, pcmToWav(new Int16Array(0), 16000));
    const cases: [string[], RegExp][] = [
      [['run', '--input', join(dir, 'missing.wav'), '-o', precious], /missing\.wav: no such file/],
      [['run', '--input', recording, '-o', recording], /recording\.wav: is the input; writing it would destroy it/],
      [['run', '--input', recording, '-o', join(dir, 'nodir', 'x.wav')], /nodir\/x\.wav: no such directory/],
      [['run', '--input', dir, '-o', precious], /: is a directory, not an audio file/],
      [['say', 'hello', '-o', join(dir, 'nodir', 's.wav')], /nodir\/s\.wav: no such directory/],
      [['demo', '-o', dir], /: is a directory/],
      [['run', '--input', recording, '-o', join(dir, 'reply.txt')], /reply\.txt: hark writes WAV here; name it \.wav/],
      [['run', '--input', recording, '-o', join(dir, 'out.mp3')], /out\.mp3: hark writes WAV here; name it \.wav/],
      [['transcribe', '--language', 'xx', recording], /--language: "xx" is not a language code \(ISO 639/],
      [['run', '--fast'], /--fast reads an input file: give it with --input/],
      [['--config', '', 'chat', 'hi'], /--config was given no file/],
      [['wake', 'scan', join(dir, 'missing.wav')], /missing\.wav: no such file/],
      [['wake', 'scan', recording, '--models', 'nosuch'], /unknown wake-word model "nosuch"/],
      [
        ['wake', 'scan', recording, '--models', join(dir, 'notes.txt.wav')],
        /notes\.txt\.wav: not a wake-word model \(onnxruntime cannot read it as ONNX: Protobuf parsing failed\)/,
      ],
      [['tools', 'call', 'nosuch', '{}'], /there is no tool named nosuch \(known: get_time/],
      [['transcribe', headerOnly], /header\.wav: holds no audio/],
      [['say', '   ', '-o', join(dir, 'blank.wav')], /nothing to say/],
      [['chat', ' '], /nothing to ask/],
      [['models', '--edition', 'Z'], /--edition Z: use A or B/],
    ];
    for (const [args, message] of cases) {
      const result = await runHark(['--sim', ...args]);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      // Said before any work: the stand-in never started.
      expect(`${result.stdout}${result.stderr}`, args.join(' ')).not.toMatch(/sim\.started|starting the stand-in/);
    }
    const clip = { HARK_VOICE_REFERENCE: recording, HARK_VOICE_REFERENCE_TEXT: 'What I said in the recording.' };
    for (const args of [
      ['say', 'hello', '-o', recording],
      ['voice', 'test', '-o', recording],
    ]) {
      const result = await runHark(['--sim', ...args], { env: cleanEnv(clip) });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(
        /recording\.wav: is the voice clip \(voice\.reference\); writing it would destroy it/,
      );
    }
    expect(await readFile(precious, 'utf8')).toBe("the user's own file");
    expect(await readFile(recording)).toEqual(await readFile(UTTERANCE));
  });

  it('chat refuses an attachment it cannot send, naming it, before asking anything', async () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'just some words');
    const photo = join(dir, 'photo.png');
    writeFileSync(photo, Buffer.from(ONE_PIXEL_PNG, 'base64'));
    const soundNamedPng = join(dir, 'sound.png');
    writeFileSync(soundNamedPng, await readFile(UTTERANCE));
    const VL = ['--model', 'Ling-3.0-flash-VL'];
    const cases: [string[], RegExp][] = [
      [['--api', 'messages', '--audio', UTTERANCE], /--video and --audio go to the chat-completions endpoint/],
      [['--image', join(dir, 'missing.png')], /missing\.png: no such file/],
      [['--image', dir], /: is a directory, not an image to attach/],
      [['--image', notes], /notes\.txt: unknown media type/],
      [
        ['--image', photo],
        /^hark: Ling-3\.0-flash takes no images: ask one that does with --model Ling-3\.0-flash-VL\n$/,
      ],
      [['--api', 'messages', '--image', photo], /^hark: Ling-3\.0-flash takes no images: ask one that does/],
      [
        ['--audio', UTTERANCE],
        /takes no audio, nor does any model of edition A .*--model Ming-3\.0-audio-flash with HARK_SERVICE_EDITION=B/,
      ],
      [[...VL, '--image', UTTERANCE], /utterance-8k\.wav: is audio, not an image\n$/],
      [[...VL, '--image', soundNamedPng], /sound\.png: is not an image: its bytes are not PNG\n$/],
    ];
    for (const [args, message] of cases) {
      const result = await runHark(['--sim', 'chat', ...args, 'what is this?']);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
    // Sent to the model that takes it: an answer, and no warning about settings the user never chose.
    const seen = await runHark(['--sim', 'chat', ...VL, '--image', photo, 'what is this?']);
    expect(seen.code).toBe(0);
    expect(seen.stderr).toBe('');
  });

  it('sim refuses a script or voice it cannot use, at once, instead of serving without it', async () => {
    const notes = join(dir, 'notes.txt');
    writeFileSync(notes, 'just some words');
    const numbers = join(dir, 'numbers.yaml');
    writeFileSync(numbers, 'replies: 5\n');
    const cases: [string[], RegExp][] = [
      [['--script', join(dir, 'missing.yaml')], /missing\.yaml: no such file/],
      [['--script', numbers], /--script .*numbers\.yaml: replies must be a list/],
      [['--script', notes], /--script .*notes\.txt: expected a mapping with replies, transcripts, faults/],
      [['--voice', 'bogus'], /--voice bogus: use auto, espeak or synthetic/],
    ];
    for (const [args, message] of cases) {
      const result = await runHark(['sim', '--port', '0', ...args], { timeoutMs: 10_000 });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  });

  it('config check refuses a status page other machines could reach without a token, as run would', async () => {
    const result = await runHark(['config', 'check'], { env: cleanEnv({ HARK_WEB_LISTEN: '0.0.0.0:18795' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/web\.listen: 0\.0\.0\.0:18795 can be reached from other machines/);
    const short = await runHark(['config', 'check'], {
      env: cleanEnv({ HARK_WEB_LISTEN: '0.0.0.0:18795', HARK_WEB_TOKEN: 'short' }),
    });
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/HARK_WEB_TOKEN is too short/);
  });

  it('config check says where it prepared the voice clip, and refuses one with too little speech to clone from', async () => {
    const cache = join(dir, 'cache');
    const clip = { HARK_VOICE_REFERENCE: UTTERANCE, HARK_VOICE_REFERENCE_TEXT: 'What I said.', XDG_CACHE_HOME: cache };
    const first = await runHark(['config', 'check'], { env: cleanEnv(clip) });
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(`^  voice clip: 5\\.4 s, prepared into ${cache}/hark/reference-[0-9a-f]{32}\\.wav$`, 'm'),
    );
    const again = await runHark(['config', 'check'], { env: cleanEnv(clip) });
    expect(again.stdout).toMatch(new RegExp(`^  voice clip: 5\\.4 s, read from ${cache}/hark/reference-`, 'm'));
    // Clipped noise: as loud as a voice all through, and no voice in it.
    const noise = join(dir, 'noise.wav');
    await runFfmpeg(['-f', 'lavfi', '-i', 'anoisesrc=c=pink:a=0.5', '-af', 'volume=12', '-t', '12', '-y', noise]);
    const refused = await runHark(['config', 'check'], { env: cleanEnv({ ...clip, HARK_VOICE_REFERENCE: noise }) });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(
      /noise\.wav: too little speech to clone a voice from: the VAD hears \d\.\d s of speech/,
    );
  });

  it('models lists both editions', async () => {
    const result = await runHark(['models']);
    expect(result.stdout).toMatch(/^A +Ring-2\.6-1T +chat, messages +- +yes/m);
    expect(result.stdout).toMatch(/^B +Ming-3\.0-audio-flash +chat +yes/m);
  });

  it('--help lists every command with what it does', async () => {
    const result = await runHark(['--help']);
    expect(result.code).toBe(0);
    const commands = [
      'run',
      'demo',
      'chat',
      'say',
      'transcribe',
      'sim',
      'models',
      'voice',
      'config',
      'devices',
      'doctor',
      'wake',
    ];
    for (const command of commands) expect(result.stdout).toMatch(new RegExp(`^  ${command}\\b.* {2}\\S`, 'm'));
  });

  it('--version says the version of the package installed, so an upgrade shows', async () => {
    // An installed copy whose package.json says another version (as after an upgrade).
    const installed = mkdtempSync(join(tmpdir(), 'hark-installed-'));
    cpSync(resolve(HARK, '../..'), join(installed, 'dist'), { recursive: true });
    symlinkSync(resolve(HARK, '../../../node_modules'), join(installed, 'node_modules'));
    writeFileSync(join(installed, 'package.json'), JSON.stringify({ name: 'hark', version: '9.8.7', type: 'module' }));
    const result = await new Promise<{ code: number | null; stdout: string }>((done) => {
      const child = spawn(process.execPath, [join(installed, 'dist', 'bin', 'hark.js'), '--version'], {
        env: cleanEnv(),
      });
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.on('close', (code) => done({ code, stdout }));
    });
    expect(result).toEqual({ code: 0, stdout: '9.8.7\n' });
  });

  it('without a key, says where to put one and exits 2', async () => {
    const result = await runHark(['chat', 'hi']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/no API key: set HARK_API_KEY/);
  });

  it('a bad config value stops it with the file and field named', async () => {
    const result = await runHark(['--sim', 'chat', 'hi'], { env: cleanEnv({ HARK_CHAT_TEMPERATURE: '7' }) });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /environment: HARK_CHAT_TEMPERATURE \(chat.temperature\): must be at most 1 \(got 7\)/,
    );
  });

  it('sim on a port another program listens on says so, and exits 2', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    const result = await runHark(['sim', '--port', String(port)]);
    taken.close();
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`--port ${port}: another program listens there; pick another, or 0`));
  });

  it('sim prints its URL and key, serves, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, [HARK, 'sim', '--port', '0'], { env: cleanEnv() });
    const banner = await new Promise<string>((resolve) => {
      let text = '';
      child.stdout.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('key:')) resolve(text);
      });
    });
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1];
    const key = /key: (\S+)/.exec(banner)?.[1];
    expect(url).toBeDefined();
    const result = await runHark(['chat', 'ping'], {
      env: cleanEnv({ HARK_SERVICE_BASE_URL: url ?? '', HARK_API_KEY: key ?? '' }),
    });
    expect(result.stdout).toMatch(/You said: ping\./);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
  });
});
