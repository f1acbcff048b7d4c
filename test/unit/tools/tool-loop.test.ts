import { describe, expect, it } from 'vitest';
import { of, type Observable } from 'rxjs';
import type { ReplyEvent, ToolCall } from '../../../src/contract/reply.js';
import type { Message } from '../../../src/dialog/conversation.js';
import type { ToolSpec } from '../../../src/dialog/tool-calls.js';
import { silentLogger } from '../../../src/system/logger.js';
import { SORRY_WORDS, toolLoop, type ToolBox, type ToolLoopEvent } from '../../../src/tools/tool-loop.js';
import { testScheduler } from '../../helpers/marbles.js';

const SPEC: ToolSpec = { name: 'get_time', description: 'time', inputSchema: { type: 'object' }, source: 'built-in' };
const call = (id: string, name = 'get_time', args = '{}'): ReplyEvent => ({
  type: 'tool_call',
  call: { id, name, arguments: args, input: JSON.parse(args) as unknown } satisfies ToolCall,
});
const text = (t: string): ReplyEvent => ({ type: 'text', text: t });
const done = (n: number): ReplyEvent => ({
  type: 'done',
  stopReason: 'stop',
  usage: { inputTokens: n, outputTokens: n, totalTokens: 2 * n },
});

interface Asked {
  messages: Message[];
  noMoreTools: boolean;
}

/** A scripted model: one list of events per request; and a box whose tools answer after `toolMs` (virtual). */
function setUp(rounds: ReplyEvent[][], run: (name: string, signal: AbortSignal) => Promise<string>, maxRounds = 4) {
  const asked: Asked[] = [];
  const box: ToolBox = {
    list: () => [SPEC],
    call: async (name, _input, signal) => ({ text: await run(name, signal) }),
  };
  let t = 0;
  const loop = toolLoop(
    (messages, offer) => {
      asked.push({ messages, noMoreTools: offer.noMoreTools });
      return of(...(rounds.shift() ?? [text('No more.'), done(1)]));
    },
    box,
    { maxRounds, callTimeoutMs: 1000, maxResultChars: 50, now: () => t++, logger: silentLogger },
  );
  return { loop, asked };
}

async function collect(events: Observable<ToolLoopEvent>): Promise<ToolLoopEvent[]> {
  const out: ToolLoopEvent[] = [];
  await new Promise<void>((resolve, reject) =>
    events.subscribe({ next: (e) => out.push(e), complete: resolve, error: reject }),
  );
  return out;
}

describe('the tool loop', () => {
  it('speaks the text of each round as it comes, runs the calls, and sends their results back', async () => {
    const { loop, asked } = setUp(
      [
        [text('Let me look. '), call('c1'), done(10)],
        [text('It is two.'), done(20)],
      ],
      async () => '14:00',
    );
    const events = await collect(loop.reply([{ role: 'user', text: 'What time is it?' }]));
    expect(events.map((e) => (e.type === 'tool' ? `tool ${e.phase}` : e.type === 'text' ? e.text : e.type))).toEqual([
      'Let me look. ',
      'tool started',
      'tool finished',
      'It is two.',
      'done',
    ]);
    expect(events.at(-1)).toMatchObject({ usage: { inputTokens: 30, outputTokens: 30, totalTokens: 60 } });
    expect(asked[1]?.messages.at(-1)).toEqual({
      role: 'assistant',
      text: 'Let me look. ',
      tools: [{ id: 'c1', name: 'get_time', arguments: '{}', result: '14:00', isError: false }],
    });
  });

  it('a tool that throws is a failed call the model hears of; if it then says nothing, hark apologises', async () => {
    const { loop, asked } = setUp([[call('c1')], [done(1)]], async () => {
      throw new Error('the clock fell off the wall');
    });
    const events = await collect(loop.reply([{ role: 'user', text: 'Time?' }]));
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool', phase: 'failed', error: 'the clock fell off the wall' }),
    );
    expect(asked[1]?.messages.at(-1)?.tools?.[0]).toMatchObject({
      isError: true,
      result: 'the clock fell off the wall',
    });
    expect(events).toContainEqual({ type: 'text', text: SORRY_WORDS });
  });

  it('an unknown tool and arguments that are not an object fail without running anything', async () => {
    let ran = 0;
    const { loop, asked } = setUp(
      [
        [call('c1', 'get_time', '[1]'), done(1)],
        [text('Hm.'), done(1)],
      ],
      async () => {
        ran++;
        return 'x';
      },
    );
    await collect(loop.reply([{ role: 'user', text: 'Time?' }]));
    expect(ran).toBe(0);
    expect(asked[1]?.messages.at(-1)?.tools?.[0]?.result).toMatch(/not a JSON object/);
  });

  it('cuts long results for the model', async () => {
    const { loop, asked } = setUp([[call('c1'), done(1)]], async () => 'word '.repeat(100));
    await collect(loop.reply([{ role: 'user', text: 'Time?' }]));
    expect(asked[1]?.messages.at(-1)?.tools?.[0]?.result).toMatch(/^word word .* more characters not shown\)$/);
  });

  it('after maxRounds rounds of calls, the model is asked to answer in words', async () => {
    const always = [call('c'), done(1)];
    const { loop, asked } = setUp([always, always, always], async () => 'x', 2);
    const events = await collect(loop.reply([{ role: 'user', text: 'Loop?' }]));
    expect(asked.map((a) => a.noMoreTools)).toEqual([false, false, true]);
    expect(events.filter((e) => e.type === 'tool' && e.phase === 'finished')).toHaveLength(2);
  });

  it('a call that takes too long times out, and its signal is aborted', () => {
    const scheduler = testScheduler();
    const signals: AbortSignal[] = [];
    const box: ToolBox = {
      list: () => [SPEC],
      call: (_name, _input, signal) => {
        signals.push(signal);
        return new Promise(() => undefined);
      },
    };
    scheduler.run(({ expectObservable, flush }) => {
      const options = { maxRounds: 1, callTimeoutMs: 100, maxResultChars: 50, now: () => scheduler.now(), scheduler };
      const loop = toolLoop(() => of(call('c1'), done(1)), box, { ...options, logger: silentLogger });
      expectObservable(loop.reply([{ role: 'user', text: 'x' }])).toBe('a 99ms (bcd|)', {
        a: expect.objectContaining({ phase: 'started' }) as unknown as ToolLoopEvent,
        b: expect.objectContaining({
          phase: 'failed',
          error: 'timed out after 100 ms',
          ms: 100,
        }) as unknown as ToolLoopEvent,
        c: { type: 'text', text: SORRY_WORDS },
        d: expect.objectContaining({ type: 'done' }) as unknown as ToolLoopEvent,
      });
      flush();
      expect(signals[0]?.aborted).toBe(true);
    });
    // Barge-in: unsubscribing while a call runs aborts it.
    testScheduler().run(({ expectObservable, flush }) => {
      const options = { maxRounds: 1, callTimeoutMs: 100, maxResultChars: 50, now: () => 0 };
      const loop = toolLoop(() => of(call('c1'), done(1)), box, { ...options, logger: silentLogger });
      expectObservable(loop.reply([{ role: 'user', text: 'x' }]), '^ 50ms !').toBe('a', {
        a: expect.objectContaining({ phase: 'started' }) as unknown as ToolLoopEvent,
      });
      flush();
      expect(signals[1]?.aborted).toBe(true);
    });
  });
});
