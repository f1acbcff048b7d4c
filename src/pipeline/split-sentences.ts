import type { OperatorFunction } from 'rxjs';
import { SENTENCE_BREAK, SentenceSplitter, type Sentence, type SplitterOptions } from '../speak/sentences.js';
import { stateful } from './stateful.js';

/** Speakable text → numbered sentences (each at most 2048 characters), the first as early as possible; a break lets out what is held. */
export function splitSentences(options: SplitterOptions = {}): OperatorFunction<string, Sentence> {
  return stateful(() => {
    const splitter = new SentenceSplitter(options);
    let index = 0;
    const number = (texts: string[]): Sentence[] => texts.map((text) => ({ index: index++, text }));
    return {
      push: (text: string) => number(text === SENTENCE_BREAK ? splitter.flush() : splitter.push(text)),
      flush: () => number(splitter.flush()),
    };
  });
}
