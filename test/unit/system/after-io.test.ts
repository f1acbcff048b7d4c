import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ignoreElements, lastValueFrom } from 'rxjs';
import { fromAbortable } from '../../../src/app/adapters/from-abortable.js';
import { requestFirst } from '../../../src/pipeline/request-first.js';
import { afterIo } from '../../../src/system/after-io.js';
import { startTestService, type TestService } from '../../helpers/service.js';

const SENT = 'undici:client:sendHeaders';
const ASK = { model: 'Ling-3.0-flash', messages: [{ role: 'user' as const, content: 'Tell me facts' }] };

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());

describe('afterIo', () => {
  it("builds a turn's other stages only once its reply request is written, on a kept-alive connection too", async () => {
    // A first call leaves the connection kept alive: undici checks such a connection for a
    // close from the server before writing on it, in the event loop's check phase.
    await service.chat.create(ASK);
    const written: string[] = [];
    const onSent = (message: unknown): void => {
      written.push((message as { request: { path: string } }).request.path);
    };
    subscribe(SENT, onSent);
    try {
      let writtenWhenBuilt: string[] | undefined;
      const reply = fromAbortable((signal) => service.chat.stream(ASK, { signal }));
      const turn = requestFirst(
        reply,
        (events) => {
          writtenWhenBuilt = [...written];
          return events.pipe(ignoreElements());
        },
        afterIo,
      );
      await lastValueFrom(turn, { defaultValue: undefined });
      expect(writtenWhenBuilt).toEqual(['/v1/chat/completions']);
    } finally {
      unsubscribe(SENT, onSent);
    }
  });
});
