import { mkdtempSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { ConfigError } from '../../../src/config/errors.js';
import { envName, envTable } from '../../../src/config/env.js';
import { DEFAULTS_PATH, loadConfig } from '../../../src/config/load.js';
import { defaultConfig } from '../../../src/config/schema.js';
import { redact } from '../../../src/system/secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'hark-config-'));
let n = 0;
function file(text: string): string {
  const path = join(dir, `config-${++n}.yaml`);
  writeFileSync(path, text);
  return path;
}
/** An environment with no user file in reach, so only what the test gives counts. */
const bare = { HOME: dir, XDG_CONFIG_HOME: join(dir, 'none') };

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('config/default.yaml', () => {
  it('documents exactly the schema defaults', () => {
    expect(YAML.parse(readFileSync(DEFAULTS_PATH, 'utf8'))).toEqual(defaultConfig());
  });

  it('documents every option with a comment', () => {
    const lines = readFileSync(DEFAULTS_PATH, 'utf8').split('\n');
    for (const { path } of envTable().values()) {
      // Each step of the path, looked for after the one before it: wake.bargeIn is not the bargeIn section.
      let line = -1;
      path.forEach((key, depth) => {
        const indent = '  '.repeat(depth);
        line = lines.findIndex((l, i) => i > line && l.startsWith(`${indent}${key}:`));
      });
      expect(line, `${path.join('.')} is in default.yaml`).toBeGreaterThan(0);
      const above = lines.slice(Math.max(0, line - 3), line).join('\n');
      expect(above, `${path.join('.')} has a comment above it`).toMatch(/#/);
    }
  });
});

describe('loadConfig', () => {
  it('layers the user file over the defaults and the environment over both', () => {
    const path = file('speech:\n  voice: Cherry\n  speed: 1.5\nchat:\n  model: Ling-3.0-tiny\n');
    const { config, sources } = loadConfig({
      configPath: path,
      env: { ...bare, HARK_SPEECH_SPEED: '2', HARK_SERVICE_API: 'messages' },
    });
    expect(config.speech.voice).toBe('Cherry');
    expect(config.speech.speed).toBe(2);
    expect(config.chat.model).toBe('Ling-3.0-tiny');
    expect(config.service.api).toBe('messages');
    expect(config.service.baseUrl).toBe('https://api.ant-ling.com');
    expect(sources).toEqual([DEFAULTS_PATH, path, 'environment']);
  });

  it('finds $XDG_CONFIG_HOME/hark/config.yaml on its own', () => {
    const xdg = join(dir, 'xdg');
    mkdirSync(join(xdg, 'hark'), { recursive: true });
    writeFileSync(join(xdg, 'hark', 'config.yaml'), 'log:\n  level: debug\n');
    expect(loadConfig({ env: { XDG_CONFIG_HOME: xdg } }).config.log.level).toBe('debug');
  });

  it('names the file, the field and what is allowed for an out-of-range value', () => {
    const path = file('speech:\n  sampleRateHz: 44100\n  speed: 9\n');
    expect(problemsOf(() => loadConfig({ configPath: path, env: bare }))).toEqual([
      `${path}: speech.sampleRateHz: must be one of 8000, 16000, 22050, 24000 (got 44100)`,
      `${path}: speech.speed: must be at most 4 (got 9)`,
    ]);
  });

  it('names an unknown option and lists the known ones', () => {
    const path = file('speech:\n  voise: Cherry\n');
    const [problem] = problemsOf(() => loadConfig({ configPath: path, env: bare }));
    expect(problem).toMatch(new RegExp(`^${path}: speech: unknown option "voise" \\(known here: model, voice,`));
  });

  it('names a wrong type and a wrong enum value', () => {
    const path = file('bargeIn:\n  enabled: "sometimes"\nservice:\n  api: rest\n');
    expect(problemsOf(() => loadConfig({ configPath: path, env: bare }))).toEqual([
      `${path}: service.api: must be one of "chat", "messages" (got "rest")`,
      `${path}: bargeIn.enabled: must be a boolean (got "sometimes")`,
    ]);
  });

  it('blames the environment for a bad environment value, naming the variable that was set', () => {
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_VAD_START_THRESHOLD: '1.5' } }))).toEqual([
      'environment: HARK_VAD_START_THRESHOLD (vad.startThreshold): must be at most 1 (got 1.5)',
    ]);
  });

  it('refuses a transcription language that is no language code', () => {
    const path = file('transcription:\n  language: english\n');
    expect(problemsOf(() => loadConfig({ configPath: path, env: bare }))).toEqual([
      `${path}: transcription.language: "english" is not a language code (ISO 639, such as en, zh or de)`,
    ]);
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_TRANSCRIPTION_LANGUAGE: 'xx' } }))).toEqual([
      'environment: HARK_TRANSCRIPTION_LANGUAGE (transcription.language): "xx" is not a language code (ISO 639, such as en, zh or de)',
    ]);
    for (const code of ['en', 'zh', 'yue', 'pt-BR']) {
      expect(loadConfig({ env: { ...bare, HARK_TRANSCRIPTION_LANGUAGE: code } }).config.transcription.language).toBe(
        code,
      );
    }
  });

  it('refuses a HARK_ variable that is no option', () => {
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_SPEECH_VOISE: 'x' } }))[0]).toMatch(
      /^environment: HARK_SPEECH_VOISE: no such option/,
    );
  });

  it('reports a YAML syntax error with the file name', () => {
    const path = file('speech:\n  voice: [unclosed\n');
    const [problem] = problemsOf(() => loadConfig({ configPath: path, env: bare }));
    expect(problem).toMatch(new RegExp(`^${path}: YAML syntax: .* at line 3, column 1$`));
  });

  it('takes a section whose settings are all commented out as an empty one', () => {
    const path = file('speech:\n  # voice: Lily\nchat:\n  temperature: 0.2\n');
    const { config } = loadConfig({ configPath: path, env: bare });
    expect(config.speech).toEqual(defaultConfig().speech);
    expect(config.chat.temperature).toBe(0.2);
  });

  it.each([
    ['a mapping', 'chat: &loop\n  inner: *loop\n', 'chat.inner'],
    ['a list', 'listen:\n  wakePhrases: &loop\n    - *loop\n', 'listen.wakePhrases[0]'],
  ])('refuses a recursive YAML alias in %s with the file and the place named', (_what, text, at) => {
    const path = file(text);
    expect(problemsOf(() => loadConfig({ configPath: path, env: bare }))).toEqual([
      `${path}: ${at}: a YAML alias refers to a node that contains it; a configuration cannot be recursive`,
    ]);
  });

  it('refuses aliases that expand without end (a "billion laughs" file) with the file named', () => {
    const levels = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 9; i++)
      levels.push(
        `${'b'.repeat(i)}: &${'b'.repeat(i)} [${Array(10)
          .fill(i === 1 ? '*a' : `*${'b'.repeat(i - 1)}`)
          .join(', ')}]`,
      );
    const path = file(`${levels.join('\n')}\n`);
    expect(problemsOf(() => loadConfig({ configPath: path, env: bare }))[0]).toMatch(
      new RegExp(`^${path}: YAML aliases:`),
    );
  });

  it('says a directory given as the config file is a directory', () => {
    const folder = join(dir, 'a-folder.yaml');
    mkdirSync(folder);
    expect(problemsOf(() => loadConfig({ configPath: folder, env: bare }))).toEqual([
      `${folder}: is a directory, not a YAML file`,
    ]);
  });

  it('refuses an API key written in a config file, pointing to the right places', () => {
    const path = file('service:\n  apiKey: sk-123\n');
    const [problem] = problemsOf(() => loadConfig({ configPath: path, env: bare }));
    expect(problem).toMatch(/service\.apiKey: the API key is never read from a config file; set HARK_API_KEY/);
    expect(problem).not.toContain('sk-123');
  });

  it('requires a reference clip and its transcript together', () => {
    const path = file('voice:\n  reference: /tmp/me.wav\n');
    expect(problemsOf(() => loadConfig({ configPath: path, env: bare }))).toEqual([
      `${path}: voice.reference: needs voice.referenceText, the verbatim transcript of the clip`,
    ]);
  });

  it('listens for a wake word on the device by default, and takes models and threshold from the environment', () => {
    const { config } = loadConfig({
      env: { ...bare, HARK_WAKE_MODELS: '[alexa, /etc/hark/hey_hark.onnx]', HARK_WAKE_THRESHOLD: '0.6' },
    });
    expect(config.wake).toMatchObject({
      engine: 'openwakeword',
      models: ['alexa', '/etc/hark/hey_hark.onnx'],
      threshold: 0.6,
      bargeIn: 'any-speech',
    });
  });

  it('refuses wake phrases that nothing would listen for, and a threshold that hears all or nothing', () => {
    const path = file('wake:\n  threshold: 1\n');
    expect(problemsOf(() => loadConfig({ configPath: path, env: bare }))).toEqual([
      `${path}: wake.threshold: must be at most 1 (exclusive) (got 1)`,
    ]);
    const phrases = file('wake:\n  engine: none\nlisten:\n  wakePhrases: [hey hark]\n');
    expect(problemsOf(() => loadConfig({ configPath: phrases, env: bare }))).toEqual([
      `${phrases}: listen.wakePhrases: are not listened for with wake.engine: none (set wake.engine: phrase to use them)`,
    ]);
  });

  it("reads the file HARK_CONFIG names (--config wins), and ignores the tests' and benchmarks' own variables", () => {
    const named = file('speech:\n  voice: Named\n');
    const given = file('speech:\n  voice: Given\n');
    const env = { ...bare, HARK_CONFIG: named, HARK_TEST_CHROMIUM: '/usr/bin/chromium', HARK_BENCH_ONLY: 'quiet' };
    expect(loadConfig({ env }).config.speech.voice).toBe('Named');
    expect(loadConfig({ env, configPath: given }).config.speech.voice).toBe('Given');
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_CONFIG: join(dir, 'gone.yaml') } }))[0]).toMatch(
      /gone\.yaml: no such file \(given as HARK_CONFIG\)/,
    );
  });

  it('refuses a --config file that does not exist', () => {
    expect(problemsOf(() => loadConfig({ configPath: join(dir, 'missing.yaml'), env: bare }))[0]).toMatch(
      /no such file/,
    );
  });

  it('reads the API key from HARK_API_KEY, else from the systemd credential', () => {
    const credentials = join(dir, 'credentials');
    mkdirSync(credentials, { recursive: true });
    writeFileSync(join(credentials, 'hark-api-key'), 'sk-from-credential\n');
    expect(loadConfig({ env: { ...bare, CREDENTIALS_DIRECTORY: credentials } }).apiKey).toBe('sk-from-credential');
    expect(loadConfig({ env: { ...bare, CREDENTIALS_DIRECTORY: credentials, HARK_API_KEY: 'sk-env' } }).apiKey).toBe(
      'sk-env',
    );
    expect(loadConfig({ env: bare }).apiKey).toBeUndefined();
  });

  it('refuses a key of more than one line, naming where it came from but never the key', () => {
    const [problem] = problemsOf(() => loadConfig({ env: { ...bare, HARK_API_KEY: 'sk-one\nsk-two' } }));
    expect(problem).toMatch(/^HARK_API_KEY: holds a line break, a tab or another control character/);
    expect(problem).not.toMatch(/sk-/);
    const credentials = join(dir, 'two-line-credentials');
    mkdirSync(credentials, { recursive: true });
    writeFileSync(join(credentials, 'hark-api-key'), 'sk-one\r\nsk-two\n');
    expect(problemsOf(() => loadConfig({ env: { ...bare, CREDENTIALS_DIRECTORY: credentials } }))[0]).toMatch(
      /^the credential hark-api-key: holds a line break/,
    );
  });

  it('asks for an http or https service URL', () => {
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_SERVICE_BASE_URL: 'ftp://x' } }))).toEqual([
      'environment: HARK_SERVICE_BASE_URL (service.baseUrl): an http:// or https:// URL, such as https://api.ant-ling.com',
    ]);
  });

  it("reads the status page's token from HARK_WEB_TOKEN or its credential, never from a file, and scrubs it from logs", () => {
    const credentials = join(dir, 'web-credentials');
    mkdirSync(credentials, { recursive: true });
    writeFileSync(join(credentials, 'hark-web-token'), 'page-token-from-credential\n');
    expect(loadConfig({ env: { ...bare, CREDENTIALS_DIRECTORY: credentials } }).webToken).toBe(
      'page-token-from-credential',
    );
    expect(loadConfig({ env: { ...bare, HARK_WEB_TOKEN: 'page-token-from-env' } }).webToken).toBe(
      'page-token-from-env',
    );
    expect(redact('GET /?token=page-token-from-env')).toBe('GET /?token=***');
    const path = file('web:\n  token: page-token-in-yaml\n');
    const [problem] = problemsOf(() => loadConfig({ configPath: path, env: bare }));
    expect(problem).toMatch(/web\.token: the status page's token is never read from a config file; set HARK_WEB_TOKEN/);
    expect(problem).not.toContain('page-token-in-yaml');
  });

  it('scrubs a password in the service URL as written and as decoded', () => {
    loadConfig({ env: { ...bare, HARK_SERVICE_BASE_URL: 'http://me:open%41sesame@127.0.0.1:9/' } });
    expect(redact('cannot reach http://me:open%41sesame@127.0.0.1:9/')).toBe('cannot reach http://me:***@127.0.0.1:9/');
    expect(redact('the password openAsesame')).toBe('the password ***');
  });

  it('listens for the status page on loopback by default, and refuses an address that is no host:port', () => {
    expect(loadConfig({ env: bare }).config.web).toEqual({ enabled: true, listen: '127.0.0.1:8790' });
    expect(loadConfig({ env: { ...bare, HARK_WEB_LISTEN: '[::]:0' } }).config.web.listen).toBe('[::]:0');
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_WEB_LISTEN: '8790' } }))[0]).toMatch(
      /environment: HARK_WEB_LISTEN \(web\.listen\): host:port, such as 127\.0\.0\.1:8790/,
    );
    // No port at all: said once, not also as a port too high.
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_WEB_LISTEN: 'localhost' } }))).toHaveLength(1);
    expect(problemsOf(() => loadConfig({ env: { ...bare, HARK_WEB_LISTEN: '0.0.0.0:70000' } }))[0]).toMatch(
      /HARK_WEB_LISTEN \(web\.listen\): the port must be at most 65535/,
    );
  });

  it('reads lists and nulls from the environment', () => {
    const { config } = loadConfig({
      env: { ...bare, HARK_LISTEN_WAKE_PHRASES: '[hey hark, ok hark]', HARK_CHAT_TEMPERATURE: '0.3' },
    });
    expect(config.listen.wakePhrases).toEqual(['hey hark', 'ok hark']);
    expect(config.chat.temperature).toBe(0.3);
  });

  it('keeps text as written for an option with no default, whatever YAML would make of it', () => {
    const { config } = loadConfig({
      env: {
        ...bare,
        HARK_SPEECH_INSTRUCTIONS: 'Warm and slow: like a radio host',
        HARK_SPEECH_VOICE: '# narrator',
        HARK_TRANSCRIPTION_LANGUAGE: 'no',
        HARK_CHAT_EFFORT: 'high',
        HARK_VOICE_REFERENCE: '/srv/voice.wav',
        HARK_VOICE_REFERENCE_TEXT: 'Note: this is me',
      },
    });
    expect(config.voice.referenceText).toBe('Note: this is me');
    expect(config.speech.instructions).toBe('Warm and slow: like a radio host');
    expect(config.speech.voice).toBe('# narrator');
    expect(config.transcription.language).toBe('no');
    expect(config.chat.effort).toBe('high');
    const cleared = loadConfig({ env: { ...bare, HARK_SPEECH_VOICE: 'null', HARK_AUDIO_CAPTURE_DEVICE: '' } }).config;
    expect(cleared.speech.voice).toBeNull();
    expect(cleared.audio.captureDevice).toBeNull();
  });
});

describe('environment names', () => {
  it('follow HARK_<SECTION>_<OPTION>', () => {
    expect(envName(['chat', 'systemPrompt'])).toBe('HARK_CHAT_SYSTEM_PROMPT');
    expect(envName(['service', 'timeouts', 'requestMs'])).toBe('HARK_SERVICE_TIMEOUTS_REQUEST_MS');
    expect(envTable().has('HARK_SPEECH_SAMPLE_RATE_HZ')).toBe(true);
  });
});

describe('reply.input: audio', () => {
  it('is refused, with what it needs, for a model or edition that cannot hear', () => {
    expect(() => loadConfig({ env: { HARK_REPLY_INPUT: 'audio' } })).toThrow(
      /HARK_REPLY_INPUT \(reply\.input\): audio needs the chat-completions endpoint \(service\.api: chat\), edition B and a chat model that takes audio \(Ming-3\.0-audio-flash\); got service\.api chat, edition A, chat\.model Ling-3\.0-flash/,
    );
    const config = loadConfig({
      env: { HARK_REPLY_INPUT: 'audio', HARK_SERVICE_EDITION: 'B', HARK_CHAT_MODEL: 'Ming-3.0-audio-flash' },
    }).config;
    expect(config.reply.input).toBe('audio');
  });
});
