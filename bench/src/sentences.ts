/**
 * hark's sentence splitter against @livekit/agents' basic sentence tokenizer, on the same
 * replies streamed token by token: characters received before the first chunk is emitted
 * (speech can start no sooner), and wrong splits on hard cases.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tokenize as livekitTokenize } from '@livekit/agents';
import { SentenceSplitter } from '../../dist/speak/sentences.js';
import { tokenize } from '../../dist/sim/script.js';
import { PACKAGE_ROOT } from '../../dist/system/package-paths.js';
import { median, round, table, writeResult } from './stats.js';

interface Splitter {
  push(text: string): Promise<string[]>;
  end(): Promise<string[]>;
}

function harkSplitter(): Splitter {
  const splitter = new SentenceSplitter();
  return { push: async (t) => splitter.push(t), end: async () => splitter.flush() };
}

function livekitSplitter(): Splitter {
  const stream = new livekitTokenize.basic.SentenceTokenizer().stream();
  const out: string[] = [];
  void (async () => {
    for await (const event of stream) out.push(event.token);
  })();
  const settle = async (): Promise<string[]> => {
    await new Promise((resolve) => setImmediate(resolve));
    return out.splice(0);
  };
  return {
    push: async (text) => {
      stream.pushText(text);
      return settle();
    },
    end: async () => {
      stream.flush();
      stream.endInput();
      await new Promise((resolve) => setTimeout(resolve, 5));
      return settle();
    },
  };
}

const SPLITTERS: Record<string, () => Splitter> = { hark: harkSplitter, livekit: livekitSplitter };

/** Replies a voice assistant gives, as a model streams them. */
const REPLIES = [
  'Sure, the tallest mountain in the world is Mount Everest, at about 8,849 metres. It sits on the border between Nepal and China.',
  'Good morning! Today will be sunny with a high of 24 degrees, so a light jacket is enough. Rain is expected on Thursday.',
  'I set a timer for ten minutes. I will let you know when it is done.',
  'To boil an egg, place it in boiling water for about seven minutes, then cool it in cold water. Peel it once it is cool enough to hold.',
  'That depends on what you mean by best, but many people love Paris in the spring. The weather is mild and the gardens are in bloom.',
  'Dr. Rivera will see you at 3:30 p.m. tomorrow. Please arrive ten minutes early.',
  '好的，我已经为你设置了明天早上七点的闹钟。祝你晚安！',
  '北京今天晴，最高气温二十五度，适合户外活动。明天可能有小雨。',
  'The answer is 42. It comes from a famous novel by Douglas Adams.',
  'Yes. I can do that for you right away, and I will remind you again in an hour.',
];

async function charsBeforeFirstChunk(make: () => Splitter, reply: string): Promise<number> {
  const splitter = make();
  let received = 0;
  for (const token of tokenize(reply)) {
    received += [...token].length;
    if ((await splitter.push(token)).length > 0) return received;
  }
  await splitter.end();
  return received;
}

interface HardCase {
  name: string;
  text: string;
  sentences: string[];
}

/**
 * Chunk boundaries (in characters, whitespace ignored) where no sentence ends and no clause
 * mark stands (wrong), and sentence ends that got no boundary (missed: a later start for
 * what follows).
 */
function judgeSplits(chunks: string[], expected: string[]): { wrong: number; missed: number } {
  const squeeze = (s: string): number => s.replace(/\s+/g, '').length;
  const ends = new Set<number>();
  let at = 0;
  for (const sentence of expected.slice(0, -1)) ends.add((at += squeeze(sentence)));
  const cuts = new Set<number>();
  let wrong = 0;
  at = 0;
  for (const chunk of chunks.slice(0, -1)) {
    cuts.add((at += squeeze(chunk)));
    if (!ends.has(at) && !/[,;:，、；：—–]$/u.test(chunk.trim())) wrong++;
  }
  return { wrong, missed: [...ends].filter((end) => !cuts.has(end)).length };
}

async function splitStreamed(make: () => Splitter, text: string): Promise<string[]> {
  const splitter = make();
  const chunks: string[] = [];
  for (const token of tokenize(text)) chunks.push(...(await splitter.push(token)));
  chunks.push(...(await splitter.end()));
  return chunks;
}

export async function benchSentences() {
  const cases = JSON.parse(
    readFileSync(join(PACKAGE_ROOT, 'test', 'fixtures', 'sentence-hard-cases.json'), 'utf8'),
  ) as HardCase[];
  const names = Object.keys(SPLITTERS);
  const first: Record<string, number[]> = {};
  const wrong: Record<string, Record<string, number>> = {};
  const missed: Record<string, number> = {};
  for (const name of names) {
    const make = SPLITTERS[name] as () => Splitter;
    first[name] = [];
    for (const reply of REPLIES) first[name].push(await charsBeforeFirstChunk(make, reply));
    wrong[name] = {};
    missed[name] = 0;
    for (const hard of cases) {
      const judged = judgeSplits(await splitStreamed(make, hard.text), hard.sentences);
      wrong[name][hard.name] = judged.wrong;
      missed[name] += judged.missed;
    }
  }
  const total = (name: string): number => Object.values(wrong[name] ?? {}).reduce((a, b) => a + b, 0);
  console.log(
    '\nSentence splitting on streamed replies: characters received before the first chunk; wrong splits on hard cases',
  );
  console.log(
    table([
      [
        'splitter',
        'chars before 1st chunk (median)',
        'per reply',
        'wrong splits (total)',
        'missed ends',
        ...cases.map((c) => c.name),
      ],
      ...names.map((n) => [
        n,
        median(first[n] ?? []),
        (first[n] ?? []).join(' '),
        total(n),
        missed[n] ?? 0,
        ...cases.map((c) => wrong[n]?.[c.name] ?? 0),
      ]),
    ]),
  );
  const ratio = round(median(first.livekit ?? []) / median(first.hark ?? []), 2);
  console.log(
    `(${REPLIES.length} replies, ${cases.length} hard cases; livekit / hark characters before the first chunk: ${ratio}x)`,
  );
  const path = writeResult('sentences', { first, wrong, missed, ratio });
  console.log(`wrote ${path}`);
}
