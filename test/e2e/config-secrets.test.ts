import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../src/sim/server.js';
import { cleanEnv, runHark } from '../helpers/cli.js';
import { FAST_TIMING } from '../helpers/service.js';
import { UTTERANCE } from '../helpers/speech.js';

const FIXTURE_SERVER = resolve(import.meta.dirname, '../fixtures/mcp/crashing-server.mjs');

describe('hark config check, with ${NAME} placeholders', () => {
  it('fails naming each placeholder whose variable is unset, in url and args too; passes once they are set', async () => {
    const env = cleanEnv();
    const config = join(env.HOME as string, 'config.yaml');
    writeFileSync(
      config,
      [
        'tools:',
        '  mcpServers:',
        '    - name: home',
        '      url: "https://mcp.example/api?key=${HOME_KEY}"',
        '      allow: ["*"]',
        '    - name: files',
        '      command: /usr/bin/mcp-files',
        '      args: ["--token=${FILES_TOKEN}"]',
        '      allow: ["*"]',
      ].join('\n'),
    );
    const unset = await runHark(['-c', config, 'config', 'check'], { env });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toContain('tools.mcpServers[0] (home).url: ${HOME_KEY} is not set');
    expect(unset.stderr).toContain('tools.mcpServers[1] (files).args[0]: ${FILES_TOKEN} is not set');
    expect(unset.stdout).not.toMatch(/configuration OK/);
    const set = await runHark(['-c', config, 'config', 'check'], {
      env: { ...env, HOME_KEY: 'home-key-123456', FILES_TOKEN: 'files-token-123456' },
    });
    expect(set).toMatchObject({ code: 0, stdout: expect.stringMatching(/^configuration OK/) as unknown });
  });
});

describe('hark run, with a ${NAME} given as a systemd credential', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ timing: FAST_TIMING });
  });
  afterAll(() => sim.close());

  it('fills it for the MCP server, though the daemon drops CREDENTIALS_DIRECTORY before the server starts', async () => {
    const env = cleanEnv({ HARK_SERVICE_BASE_URL: sim.url, HARK_API_KEY: sim.apiKey, HARK_WAKE_ENGINE: 'none' });
    const home = env.HOME as string;
    const credentials = join(home, 'credentials');
    mkdirSync(credentials, { mode: 0o700 });
    writeFileSync(join(credentials, 'MCP_TOKEN'), 'from-the-credential-7781\n', { mode: 0o400 });
    const config = join(home, 'config.yaml');
    writeFileSync(
      config,
      [
        'tools:',
        '  mcpServers:',
        '    - name: fixture',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(FIXTURE_SERVER)}, "--token=\${MCP_TOKEN}"]`,
        '      env: { TOKEN: "${MCP_TOKEN}" }',
        '      allow: [env, args]',
      ].join('\n'),
    );
    sim.script
      .transcript('What does the server have?')
      .reply({ toolCall: { name: 'env', arguments: { names: ['TOKEN'] } } }, 'It has a token.');
    const run = await runHark(['-c', config, 'run', '--input', UTTERANCE, '--fast', '-o', join(home, 'out.wav')], {
      env: { ...env, CREDENTIALS_DIRECTORY: credentials },
      timeoutMs: 60_000,
    });
    // The log is the command's output.
    expect(run.stdout).not.toContain('mcp.unavailable');
    expect(run.code).toBe(0);
    const chats = sim.requestsTo('chat');
    const result = (chats.at(-1)?.body as { messages: { role: string; content: unknown }[] }).messages.at(-1);
    expect(result).toMatchObject({ role: 'tool', content: 'TOKEN=from-the-credential-7781' });
    // And scrubbed from the log like every secret.
    expect(`${run.stdout}${run.stderr}`).not.toContain('from-the-credential-7781');
  });
});
