import { from, lastValueFrom, toArray } from 'rxjs';
import type { ReplyEvent } from '../contract/reply.js';
import { speakableText } from '../pipeline/speakable-text.js';
import { splitSentences } from '../pipeline/split-sentences.js';

const SAMPLE: ReplyEvent[] = [
  { type: 'text', text: '**Warm** up: the first reply. ' },
  { type: 'text', text: 'It is 8 km, then 你好。The end' },
  { type: 'done', stopReason: 'stop', usage: undefined },
];

/**
 * Runs the reply's text stages once before listening, so the first turn does not pay for
 * building Intl.Segmenter's sentence data (tens of ms) and compiling their code paths.
 */
export async function warmUp(): Promise<void> {
  await lastValueFrom(from(SAMPLE).pipe(speakableText(), splitSentences(), toArray()));
}
