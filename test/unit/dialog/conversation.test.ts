import { describe, expect, it } from 'vitest';
import {
  INTERRUPTED_MARK,
  afterTurn,
  afterVerdict,
  messagesFor,
  newConversation,
  queryText,
} from '../../../src/dialog/conversation.js';
import { transcript, turnEndingAt } from '../../helpers/turns.js';

const MEMORY = { maxTurns: 10, maxChars: 10_000, followUpMs: 8000 };

describe('the conversation', () => {
  it('keeps a reply heard to the end, and opens the follow-up window', () => {
    const c = afterTurn(newConversation(), turnEndingAt(1000), MEMORY);
    expect(messagesFor(c, 'Thanks')).toEqual([
      { role: 'user', text: 'what time is it?' },
      { role: 'assistant', text: 'Noon. Lunch time.' },
      { role: 'user', text: 'Thanks' },
    ]);
    expect(c.followUpUntil).toBe(9000);
  });

  it('keeps only what was heard of an interrupted reply, marked, and opens no window', () => {
    const c = afterTurn(newConversation(), turnEndingAt(1000, 'speech', 'Noon.'), MEMORY);
    expect(c.messages.at(-1)).toEqual({ role: 'assistant', text: `Noon.${INTERRUPTED_MARK}` });
    expect(c.followUpUntil).toBe(-Infinity);
    expect(c.interruptedAt).toBe(1000);
  });

  it('carries a query cut before hark said a word into the next one, once', () => {
    const cut = afterTurn(newConversation(), turnEndingAt(1000, 'speech', ''), MEMORY);
    expect(cut.messages).toEqual([]);
    expect(queryText(cut, 'and tomorrow?')).toBe('what time is it? and tomorrow?');
    const next = afterTurn(cut, turnEndingAt(3000), MEMORY);
    expect(next.carried).toBe('');
  });

  it('carries nothing when a stop phrase cut the query, or was said after it', () => {
    expect(afterTurn(newConversation(), turnEndingAt(1000, 'stop', ''), MEMORY).carried).toBe('');
    // The status page's stop button, pressed while hark was still thinking.
    expect(afterTurn(newConversation(), turnEndingAt(1000, 'control', ''), MEMORY).carried).toBe('');
    const cut = afterTurn(newConversation(), turnEndingAt(1000, 'speech', ''), MEMORY);
    expect(afterVerdict(cut, { type: 'stop', transcript: transcript('Stop.') }, 1500, MEMORY).carried).toBe('');
  });

  it('a failure that said nothing leaves no trace; one that said something keeps it, marked', () => {
    const silent = afterTurn(newConversation(), turnEndingAt(1000, false, '', new Error('503')), MEMORY);
    expect(silent.messages).toEqual([]);
    const partial = afterTurn(newConversation(), turnEndingAt(1000, false, 'Noon.', new Error('503')), MEMORY);
    expect(partial.messages.at(-1)).toEqual({ role: 'assistant', text: `Noon.${INTERRUPTED_MARK}` });
  });

  it('drops the oldest exchanges beyond the turn and character limits', () => {
    let c = newConversation();
    for (const at of [1, 2, 3]) c = afterTurn(c, turnEndingAt(at), { ...MEMORY, maxTurns: 2 });
    expect(c.messages).toHaveLength(4);
    let short = newConversation();
    short = afterTurn(short, turnEndingAt(1), { ...MEMORY, maxChars: 40 });
    short = afterTurn(short, turnEndingAt(2), { ...MEMORY, maxChars: 40 });
    expect(short.messages).toHaveLength(2);
  });
});

describe('the conversation with tools', () => {
  const exchange = {
    id: 'c1',
    name: 'set_timer',
    arguments: '{"seconds":600}',
    result: 'x'.repeat(1000),
    isError: false,
  };

  it('keeps the calls of a turn, their results cut short, between the query and the reply', () => {
    const turn = { ...turnEndingAt(1000), tools: [exchange] };
    const c = afterTurn(newConversation(), turn, MEMORY);
    expect(c.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'assistant']);
    const kept = c.messages[1]?.tools?.[0];
    expect(kept?.name).toBe('set_timer');
    expect(kept?.result.length).toBeLessThan(400);
  });

  it('a turn cut before a word was heard, after a tool ran, is remembered, not carried into the next query', () => {
    const turn = { ...turnEndingAt(1000, 'speech', ''), tools: [exchange] };
    const c = afterTurn(newConversation(), turn, MEMORY);
    expect(c.carried).toBe('');
    expect(c.messages).toHaveLength(3);
  });

  it('drops whole exchanges, tool messages and all', () => {
    let c = newConversation();
    for (const at of [1, 2, 3])
      c = afterTurn(c, { ...turnEndingAt(at), tools: [exchange] }, { ...MEMORY, maxTurns: 2 });
    expect(c.messages).toHaveLength(6);
    expect(c.messages[0]?.role).toBe('user');
  });
});
