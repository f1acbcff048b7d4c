import { Observable, type OperatorFunction } from 'rxjs';
import type { ReplyEvent } from '../service/reply.js';
import { SentenceSplitter, type SplitterOptions } from '../speak/sentences.js';
import { SpeakableFilter } from '../speak/speakable.js';

/** Reply events → the text that may be spoken (no markdown, no emoji, no URLs, never reasoning). */
export function speakableText(): OperatorFunction<ReplyEvent, string> {
  return (source) =>
    new Observable<string>((subscriber) => {
      const filter = new SpeakableFilter();
      return source.subscribe({
        next: (event) => {
          if (event.type !== 'text') return;
          const text = filter.push(event.text);
          if (text) subscriber.next(text);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          const rest = filter.flush();
          if (rest) subscriber.next(rest);
          subscriber.complete();
        },
      });
    });
}

export interface Sentence {
  index: number;
  text: string;
}

/** Speakable text → sentences (each at most 2048 characters), the first as early as possible. */
export function splitSentences(options: SplitterOptions = {}): OperatorFunction<string, Sentence> {
  return (source) =>
    new Observable<Sentence>((subscriber) => {
      const splitter = new SentenceSplitter(options);
      let index = 0;
      const emit = (texts: string[]): void => {
        for (const text of texts) subscriber.next({ index: index++, text });
      };
      return source.subscribe({
        next: (text) => emit(splitter.push(text)),
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          emit(splitter.flush());
          subscriber.complete();
        },
      });
    });
}
