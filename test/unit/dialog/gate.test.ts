import { describe, expect, it } from 'vitest';
import { afterTurn, afterVerdict, newConversation, type Conversation } from '../../../src/dialog/conversation.js';
import { admit, type GatePolicy } from '../../../src/dialog/gate.js';
import { transcript, turnEndingAt } from '../../helpers/turns.js';

const POLICY: GatePolicy = {
  wakePhrases: ['hey hark'],
  stopPhrases: ['stop', 'cancel'],
  stopAfterInterruptionMs: 5000,
};
const MEMORY = { maxTurns: 10, maxChars: 10_000, followUpMs: 8000 };

describe('admit', () => {
  it('needs the wake phrase, takes it off, and needs none during the follow-up window', () => {
    let conversation: Conversation = newConversation();
    expect(admit(transcript('What time is it?'), 'listening', conversation, 0, POLICY)).toMatchObject({
      type: 'ignored',
      reason: 'no wake phrase',
    });
    expect(admit(transcript('Hey hark, what time is it?'), 'listening', conversation, 0, POLICY)).toMatchObject({
      type: 'query',
      query: { text: 'what time is it?' },
    });
    conversation = afterTurn(conversation, turnEndingAt(1000), MEMORY);
    expect(admit(transcript('And the date?'), 'listening', conversation, 7000, POLICY)).toMatchObject({
      type: 'query',
      query: { text: 'And the date?' },
    });
    expect(admit(transcript('And tomorrow?'), 'listening', conversation, 16_000, POLICY)).toMatchObject({
      type: 'ignored',
    });
  });

  it('acknowledges the wake phrase alone and opens the window for the question', () => {
    const wake = admit(transcript('Hey hark.'), 'listening', newConversation(), 0, POLICY);
    expect(wake).toEqual({ type: 'wake', phrase: 'hey hark' });
    const conversation = afterVerdict(newConversation(), wake, 0, MEMORY);
    expect(admit(transcript('Set a timer.'), 'listening', conversation, 3000, POLICY)).toMatchObject({
      type: 'query',
      query: { text: 'Set a timer.' },
    });
  });

  it('stops on "stop" while speaking or right after being talked over, but takes it as a query otherwise', () => {
    const open: GatePolicy = { ...POLICY, wakePhrases: [] };
    expect(admit(transcript('Stop.'), 'speaking', newConversation(), 0, open)).toMatchObject({ type: 'stop' });
    const cut = afterTurn(newConversation(), turnEndingAt(0, 'speech'), MEMORY);
    expect(admit(transcript('stop please'), 'listening', cut, 1500, open)).toMatchObject({ type: 'stop' });
    expect(admit(transcript('Stop.'), 'listening', cut, 60_000, open)).toMatchObject({ type: 'query' });
  });
});
