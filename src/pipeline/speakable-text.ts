import type { OperatorFunction } from 'rxjs';
import type { ReplyEvent } from '../contract/reply.js';
import type { ToolActivity } from '../dialog/tool-calls.js';
import { SENTENCE_BREAK } from '../speak/sentences.js';
import { SpeakableFilter } from '../speak/speakable.js';
import { stateful } from './stateful.js';

/**
 * Reply events → the text that may be spoken (no markdown, no emoji, no URLs, never reasoning).
 * When the model stops to call a tool, what it said so far is let out whole, then a sentence
 * break, so it is spoken while the tool runs.
 */
export function speakableText(): OperatorFunction<ReplyEvent | ToolActivity, string> {
  return stateful(() => {
    const filter = new SpeakableFilter();
    const some = (text: string): string[] => (text ? [text] : []);
    return {
      push: (event: ReplyEvent | ToolActivity) => {
        if (event.type === 'text') return some(filter.push(event.text));
        if (event.type === 'tool' && event.phase === 'started') return [...some(filter.flush()), SENTENCE_BREAK];
        return [];
      },
      flush: () => some(filter.flush()),
    };
  });
}
