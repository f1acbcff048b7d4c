import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { charCount } from '../../../src/contract/limits.js';
import { SentenceSplitter } from '../../../src/speak/sentences.js';

function split(text: string, step = 4, options = {}): string[] {
  const splitter = new SentenceSplitter(options);
  const out: string[] = [];
  const chars = [...text];
  for (let i = 0; i < chars.length; i += step) out.push(...splitter.push(chars.slice(i, i + step).join('')));
  return [...out, ...splitter.flush()];
}

/** Cases where a careless splitter breaks a sentence (shared with the benchmark): each must come out whole. */
const HARD_CASES = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../fixtures/sentence-hard-cases.json'), 'utf8'),
) as {
  name: string;
  text: string;
  sentences: string[];
}[];

describe('SentenceSplitter', () => {
  it.each(HARD_CASES.map((c) => [c.name, c]))('%s', (_name, { text, sentences }) => {
    // The first chunk may be an early clause; what matters is that no chunk ends mid-sentence wrongly.
    const chunks = split(text, 3, { firstClauseMinChars: 1000 });
    expect(chunks).toEqual(sentences);
  });

  it('emits the first clause early so speech can start sooner', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('Well, to answer your question properly, ')).toEqual([]);
    expect(splitter.push('we')).toEqual(['Well, to answer your question properly,']);
    expect(splitter.push(' need more. Then more. ')).toEqual(['we need more.']);
    expect(splitter.flush()).toEqual(['Then more.']);
  });

  it('does not take a comma between digits for a clause', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('The population is about 1,234,567 people')).toEqual([]);
  });

  it('merges tiny fragments with the next sentence', () => {
    expect(split('Yes. No. Maybe so, I think. Sure.', 4, { firstClauseMinChars: 1000 })).toEqual([
      'Yes. No. Maybe so, I think.',
      'Sure.',
    ]);
  });

  it('waits for the word after a title before deciding', () => {
    const splitter = new SentenceSplitter();
    expect(splitter.push('I asked Dr. ')).toEqual([]);
    expect(splitter.push('Who about it. And then')).toEqual(['I asked Dr. Who about it.']);
  });

  it('never emits a chunk over 2048 characters, cutting at a clause or a word', () => {
    const clause = 'and the story goes on through another long winding clause, ';
    const long = `${clause.repeat(80)}until it ends.`;
    const chunks = split(long, 50);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) expect(charCount(chunk)).toBeLessThanOrEqual(2048);
    expect(chunks.slice(0, -1).every((c) => c.endsWith(','))).toBe(true);
    expect(chunks.join(' ')).toBe(long.trim());
  });

  it('cuts a run without clause marks at a word, and a run without spaces anywhere', () => {
    const words = `${'word '.repeat(600)}end.`;
    for (const chunk of split(words, 97)) expect(charCount(chunk)).toBeLessThanOrEqual(2048);
    const cjk = '好'.repeat(5000);
    const chunks = split(cjk, 100);
    for (const chunk of chunks) expect(charCount(chunk)).toBeLessThanOrEqual(2048);
    expect(chunks.join('')).toBe(cjk);
  });
});
