import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UTTERANCE } from '../helpers/speech.js';
import { cleanEnv, runHark } from '../helpers/cli.js';
import { composeWav, runLoop, workDir } from '../helpers/loop.js';

const clip = (ms: number) => ({ path: UTTERANCE, fromMs: 300, toMs: 300 + ms });
const EVERYTHING = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

/** The reference MCP server from npm, over stdio, offering only `allow`. */
const everything = (allow: string[]) => ({
  name: 'everything',
  command: process.execPath,
  args: [EVERYTHING, 'stdio'],
  env: {},
  headers: {},
  allow,
});

type Body = { messages: { role: string; content: unknown; tool_call_id?: string }[] };
const bodyOf = (request: { body: unknown } | undefined): Body => request?.body as Body;

describe('tools in the voice loop', () => {
  it('"set a timer for 3 seconds": the call, a spoken confirmation, the timer rings while idle, and "stop" silences it', async () => {
    // Real time: the request (1.5 s), quiet while the timer runs and rings, "stop" (0.6 s), quiet.
    const input = await composeWav([clip(1500), 6500, clip(600), 1500]);
    const run = await runLoop({
      input,
      fast: false,
      config: (c) => {
        c.bargeIn.minSpeechMs = 2000;
        c.tools.timers.repeatPauseMs = 500;
      },
      prepare: (sim) =>
        sim.script
          .transcript('Set a timer for three seconds.', 'Stop.')
          .reply(
            { toolCall: { name: 'set_timer', arguments: { duration_seconds: 3 } } },
            'Your three second timer is running.',
          ),
    });
    const chats = run.sim.requestsTo('chat');
    expect(chats).toHaveLength(2);
    const tool = bodyOf(chats[1]).messages.at(-1);
    expect(tool).toMatchObject({ role: 'tool', tool_call_id: expect.stringMatching(/^call_sim_/) as unknown });
    expect(String(tool?.content)).toMatch(/^Timer set for 3 seconds/);
    expect(run.outcomes[0]).toMatchObject({ interrupted: false, heard: 'Your three second timer is running.' });
    const lines = run.logger.lines;
    expect(lines.find((l) => l.event === 'tool.done')).toMatchObject({ name: 'set_timer' });
    const started = lines.find((l) => l.event === 'ring.started');
    expect(started).toMatchObject({ text: 'Your 3 seconds timer is done.' });
    expect(lines.find((l) => l.event === 'ring.stopped')).toMatchObject({ by: 'stop' });
    // The announcement was spoken (synthesized once, replayed), and no chat request was made for "stop".
    const speech = run.sim.requestsTo('speech').map((r) => (r.body as { input: string }).input);
    expect(speech).toContain('Your 3 seconds timer is done.');
  });

  it('a timer set before a restart rings after it', async () => {
    const stateDir = mkdtempSync(join(workDir, 'restart-'));
    await runLoop({
      input: UTTERANCE,
      fast: true,
      stateDir,
      prepare: (sim) =>
        sim.script
          .transcript('Set a pasta timer for two seconds.')
          .reply({ toolCall: { name: 'set_timer', arguments: { duration_seconds: 2, label: 'pasta' } } }, 'Set.'),
    });
    const saved = JSON.parse(readFileSync(join(stateDir, 'timers.json'), 'utf8')) as { timers: unknown[] };
    expect(saved.timers).toHaveLength(1);
    const quiet = await composeWav([3500]);
    const after = await runLoop({ input: quiet, fast: false, stateDir });
    expect(after.logger.lines.find((l) => l.event === 'ring.started')).toMatchObject({
      text: 'Your pasta timer is done.',
    });
    expect(after.sim.requestsTo('speech').map((r) => (r.body as { input: string }).input)).toContain(
      'Your pasta timer is done.',
    );
  });

  for (const api of ['chat', 'messages'] as const) {
    it(`"what time is it" on the ${api} endpoint: get_time runs and its answer reaches the model`, async () => {
      const run = await runLoop({
        input: UTTERANCE,
        fast: true,
        config: (c) => {
          c.service.api = api;
        },
        prepare: (sim) =>
          sim.script
            .transcript('What time is it?')
            .reply({ text: 'Let me look.', toolCall: { name: 'get_time', arguments: {} } }, 'It is time for tea.'),
      });
      const requests = run.sim.requestsTo(api);
      expect(requests).toHaveLength(2);
      const sent = JSON.stringify(requests[1]?.body);
      expect(sent).toMatch(/\d{2}:\d{2} in [A-Za-z_/]+ \(UTC[+-]\d{2}:\d{2}\)/);
      expect(run.outcomes[0]?.heard).toBe('Let me look. It is time for tea.');
      expect(run.outcomes[0]?.tools).toEqual([expect.objectContaining({ name: 'get_time', isError: false })]);
    });
  }

  it('a tool that throws: the model hears why, and hark says a short apology when the model says nothing', async () => {
    const run = await runLoop({
      input: UTTERANCE,
      fast: true,
      prepare: (sim) =>
        sim.script
          .transcript('Set a timer.')
          .reply({ toolCall: { name: 'set_timer', arguments: { duration_seconds: 'soon' } } }, { text: '' }),
    });
    const chats = run.sim.requestsTo('chat');
    expect(chats).toHaveLength(2);
    expect(JSON.stringify(chats[1]?.body)).toContain('duration_seconds must be a number');
    expect(run.logger.lines.find((l) => l.event === 'tool.failed')).toMatchObject({ name: 'set_timer' });
    expect(run.outcomes[0]).toMatchObject({ failed: undefined, heard: 'Sorry, that did not work.' });
  });

  it('a real MCP server (stdio): its tool is offered, called, and its result reaches the next model request', async () => {
    const run = await runLoop({
      input: UTTERANCE,
      fast: true,
      config: (c) => {
        c.tools.mcpServers = [everything(['echo'])];
      },
      prepare: (sim) =>
        sim.script
          .transcript('Echo hello.')
          .reply({ toolCall: { name: 'echo', arguments: { message: 'hello from hark' } } }, 'It said hello.'),
    });
    const chats = run.sim.requestsTo('chat');
    expect(chats).toHaveLength(2);
    const offered = (chats[0]?.body as { tools: { function: { name: string } }[] }).tools.map((t) => t.function.name);
    expect(offered).toContain('echo');
    expect(offered).not.toContain('get-env');
    expect(bodyOf(chats[1]).messages.at(-1)).toMatchObject({ role: 'tool', content: 'Echo: hello from hark' });
    expect(run.outcomes[0]?.heard).toBe('It said hello.');
  });

  it('barge-in during a tool call cancels it, and the next turn goes on', async () => {
    // Real time: the request (1.5 s); the operation would take 20 s; the user talks over hark at 3.5 s.
    const input = await composeWav([clip(1500), 2000, clip(1500), 1500]);
    const run = await runLoop({
      input,
      fast: false,
      config: (c) => {
        c.tools.mcpServers = [everything(['trigger-long-running-operation'])];
      },
      prepare: (sim) =>
        sim.script.transcript('Run the long job.', 'Never mind, hello.').reply(
          {
            text: 'Starting the long job now, this will take a while, so please bear with me for a moment.',
            toolCall: { name: 'trigger-long-running-operation', arguments: { duration: 20, steps: 2 } },
          },
          'Hello.',
        ),
    });
    expect(run.outcomes.map((t) => t.interrupted)).toEqual([expect.stringMatching(/speech|query/), false]);
    expect(run.logger.lines.find((l) => l.event === 'tool.failed')).toMatchObject({
      name: 'trigger-long-running-operation',
      error: 'cancelled',
    });
    expect(run.sim.requestsTo('chat')).toHaveLength(2);
    expect(existsSync(EVERYTHING)).toBe(true);
  });
});

describe('hark tools', () => {
  it("list --json shows the built-ins and an MCP server's allowed tools with source and schema; call runs one", async () => {
    const env = cleanEnv();
    const config = join(mkdtempSync(join(workDir, 'cli-')), 'config.yaml');
    writeFileSync(
      config,
      [
        'tools:',
        '  mcpServers:',
        '    - name: everything',
        `      command: ${JSON.stringify(process.execPath)}`,
        `      args: [${JSON.stringify(EVERYTHING)}, stdio]`,
        '      allow: [get-sum]',
      ].join('\n'),
    );
    const listed = await runHark(['-c', config, 'tools', 'list', '--json'], { env });
    expect(listed.code).toBe(0);
    const tools = JSON.parse(listed.stdout) as { name: string; source: string; inputSchema: { type: string } }[];
    expect(tools.map((t) => `${t.name} ${t.source}`)).toEqual([
      'get_time built-in',
      'set_timer built-in',
      'list_timers built-in',
      'cancel_timer built-in',
      'snooze_timer built-in',
      'volume built-in',
      'get-sum mcp:everything',
    ]);
    expect(tools.every((t) => t.inputSchema.type === 'object')).toBe(true);
    const sum = await runHark(['-c', config, 'tools', 'call', 'get-sum', '{"a": 2, "b": 3}'], { env });
    expect(sum).toMatchObject({ code: 0, stdout: 'The sum of 2 and 3 is 5.\n' });
    const timer = await runHark(['tools', 'call', 'set_timer', '{"duration_seconds": 600, "label": "tea"}'], { env });
    expect(timer.stdout).toMatch(/^Timer set for 10 minutes \(tea\)/);
    const kept = await runHark(['tools', 'call', 'list_timers'], { env });
    expect(kept.stdout).toMatch(/^1 set: tea timer, (9|10) minutes/);
    const bad = await runHark(['tools', 'call', 'get_time', '[1]'], { env });
    expect(bad.code).toBe(2);
    const unknown = await runHark(['tools', 'call', 'nope'], { env });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^hark: there is no tool named nope \(known: get_time, set_timer, /);
  });
});
