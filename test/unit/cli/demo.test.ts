import { describe, expect, it } from 'vitest';
import { DemoProgress } from '../../../src/cli/demo.js';
import type { AssistantEvent } from '../../../src/pipeline/events.js';

function stream(isTTY: boolean) {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream };
}

describe('the demo’s progress', () => {
  it('says each step once as it happens: speech, the cut, the transcript, the reply', () => {
    const out = stream(false);
    const progress = new DemoProgress('/tmp/hark-demo-reply.wav', out.stream);
    const samples = new Int16Array(40_000);
    const events = [
      { type: 'speech', id: 1, onsetMs: 620, durationMs: 32 },
      { type: 'speech', id: 1, onsetMs: 620, durationMs: 64 },
      { type: 'utterance', utterance: { id: 1, part: 0, final: true, samples, sampleRateHz: 16000 } },
      { type: 'query', query: { text: 'What is the tallest mountain?', transcript: { tentative: false } } },
      { type: 'state', state: 'thinking' },
      { type: 'state', state: 'speaking' },
    ] as unknown as AssistantEvent[];
    for (const event of events) progress.on(event);
    expect(out.written).toEqual([
      'hark demo: you are speaking (from 0.6 s into the recording) ...\n',
      'hark demo: you stopped: 2.5 s of speech, transcribing ...\n',
      'hark demo: heard "What is the tallest mountain?", waiting for the reply ...\n',
      'hark demo: hark is speaking, in real time, into hark-demo-reply.wav ...\n',
    ]);
  });

  it('a guess at a pause: says the reply is asked for early, then that it stands, or that it was dropped', () => {
    const out = stream(false);
    const progress = new DemoProgress('/tmp/hark-demo-reply.wav', out.stream);
    const samples = new Int16Array(40_000);
    const guess = (text: string) => ({ type: 'query', query: { text, transcript: { tentative: true } } });
    const events = [
      { type: 'speech', id: 1, onsetMs: 620, durationMs: 32 },
      guess('Add eggs'),
      { type: 'retracted', utteranceId: 1 },
      guess('Add eggs and milk.'),
      { type: 'utterance', utterance: { id: 1, part: 0, final: true, samples, sampleRateHz: 16000 } },
      { type: 'query', query: { text: 'Add eggs and milk.', transcript: { tentative: false } } },
    ] as unknown as AssistantEvent[];
    for (const event of events) progress.on(event);
    expect(out.written).toEqual([
      'hark demo: you are speaking (from 0.6 s into the recording) ...\n',
      'hark demo: at a pause, heard "Add eggs": asking for the reply now, to sound once you have finished ...\n',
      'hark demo: you went on: the guess and its reply are dropped ...\n',
      'hark demo: at a pause, heard "Add eggs and milk.": asking for the reply now, to sound once you have finished ...\n',
      'hark demo: you stopped: 2.5 s of speech ...\n',
      'hark demo: you had finished: the reply already under way sounds ...\n',
    ]);
  });

  it('on a terminal, a clock runs while the reply is written, and stops with the turn', () => {
    const out = stream(true);
    const progress = new DemoProgress('/tmp/reply.wav', out.stream);
    progress.on({ type: 'state', state: 'speaking' });
    expect(out.written).toEqual(['\rhark demo: hark is speaking, in real time, into reply.wav ... 0 s']);
    progress.on({ type: 'turn' } as unknown as AssistantEvent);
    expect(out.written.at(-1)).toBe('\n');
  });
});
