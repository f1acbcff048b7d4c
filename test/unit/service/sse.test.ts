import { describe, expect, it } from 'vitest';
import { SseDecoder, decodeSse, type SseEvent } from '../../../src/service/sse.js';

function decodeParts(parts: Uint8Array[]): SseEvent[] {
  const events: SseEvent[] = [];
  const decoder = new SseDecoder((e) => events.push(e));
  for (const part of parts) decoder.push(part);
  decoder.end();
  return events;
}

/** A stream that exercises every rule: LF, CRLF and lone CR endings, comments, multi-line data, ids, multi-byte text. */
const STREAM = Buffer.from(
  '\uFEFF: a comment line first\n' +
    'data:{"choices":[{"delta":{"content":"Hello"}}]}\n\n' +
    'event:content_block_delta\r\ndata:{"delta":{"text":"你好，世界。"}}\r\n\r\n' +
    'data: first line\rdata: second line\r\r' +
    'id: 42\nevent: ping\ndata\n\n' +
    'retry: 1000\nunknown-field: whatever\ndata: emoji 🙂 and é\n\n' +
    'event: lonely-event-without-data\n\n' +
    'data: [DONE]\n\n',
  'utf8',
);

const EXPECTED: SseEvent[] = [
  { event: 'message', data: '{"choices":[{"delta":{"content":"Hello"}}]}', id: undefined },
  { event: 'content_block_delta', data: '{"delta":{"text":"你好，世界。"}}', id: undefined },
  { event: 'message', data: 'first line\nsecond line', id: undefined },
  { event: 'ping', data: '', id: '42' },
  { event: 'message', data: 'emoji 🙂 and é', id: '42' },
  { event: 'message', data: '[DONE]', id: '42' },
];

describe('SseDecoder', () => {
  it('decodes the whole stream in one piece', () => {
    expect(decodeParts([STREAM])).toEqual(EXPECTED);
  });

  it('decodes the same when the input is split at every byte position', () => {
    for (let at = 0; at <= STREAM.length; at++) {
      const parts = [STREAM.subarray(0, at), STREAM.subarray(at)];
      expect(decodeParts(parts), `split at byte ${at}`).toEqual(EXPECTED);
    }
  });

  it('decodes the same when split at every pair of byte positions', () => {
    const step = 3;
    for (let a = 0; a <= STREAM.length; a += step) {
      for (let b = a; b <= STREAM.length; b += step) {
        const parts = [STREAM.subarray(0, a), STREAM.subarray(a, b), STREAM.subarray(b)];
        expect(decodeParts(parts), `split at ${a} and ${b}`).toEqual(EXPECTED);
      }
    }
  });

  it('decodes the same when fed one byte at a time', () => {
    const bytes = [...STREAM].map((b) => Uint8Array.of(b));
    expect(decodeParts(bytes)).toEqual(EXPECTED);
  });

  it('dispatches a last event that lacks its closing blank line', () => {
    expect(decodeParts([Buffer.from('data: tail without blank line')])).toEqual([
      { event: 'message', data: 'tail without blank line', id: undefined },
    ]);
  });

  it('treats a CR at the end of one chunk and an LF at the start of the next as one line ending', () => {
    const events = decodeParts([Buffer.from('data: a\r'), Buffer.from('\ndata: b\r'), Buffer.from('\n\r\n')]);
    expect(events).toEqual([{ event: 'message', data: 'a\nb', id: undefined }]);
  });
});

describe('decodeSse', () => {
  it('yields events as soon as their chunk arrives', async () => {
    async function* chunks(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('data: one\n\nda');
      yield Buffer.from('ta: two\n\n');
    }
    const seen: string[] = [];
    for await (const event of decodeSse(chunks())) seen.push(event.data);
    expect(seen).toEqual(['one', 'two']);
  });
});
