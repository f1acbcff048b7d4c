import type { OperatorFunction } from 'rxjs';
import type { ReplyEvent } from '../contract/reply.js';
import { SpeakableFilter } from '../speak/speakable.js';
import { stateful } from './stateful.js';

/** Reply events → the text that may be spoken (no markdown, no emoji, no URLs, never reasoning). */
export function speakableText(): OperatorFunction<ReplyEvent, string> {
  return stateful(() => {
    const filter = new SpeakableFilter();
    const some = (text: string): string[] => (text ? [text] : []);
    return {
      push: (event: ReplyEvent) => (event.type === 'text' ? some(filter.push(event.text)) : []),
      flush: () => some(filter.flush()),
    };
  });
}
