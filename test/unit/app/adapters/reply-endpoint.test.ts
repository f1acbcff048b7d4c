import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../../src/config/schema.js';
import { collectReply } from '../../../../src/contract/reply.js';
import type { Message } from '../../../../src/dialog/conversation.js';
import { replyEndpoint } from '../../../../src/app/adapters/reply-endpoint.js';
import { startTestService, type TestService } from '../../../helpers/service.js';

let service: TestService;
beforeAll(async () => {
  service = await startTestService();
});
afterAll(() => service.close());
beforeEach(() => {
  service.sim.script.clear();
  service.sim.requests.length = 0;
});

const history: Message[] = [{ role: 'user', text: 'What time is it?' }];

function configFor(api: 'chat' | 'messages') {
  const config = defaultConfig();
  config.service.api = api;
  return config;
}

describe('replyEndpoint: the one choice between chat-completions and messages', () => {
  it.each(['chat', 'messages'] as const)(
    'service.api %s: streamed and whole replies go to that endpoint alone',
    async (api) => {
      const other = api === 'chat' ? 'messages' : 'chat';
      const endpoint = replyEndpoint(configFor(api));
      service.sim.script.reply('It is noon.').reply('It is still noon.');
      const streamed = await collectReply(endpoint.stream(service, history));
      const whole = await endpoint.create(service, history);
      expect([streamed.text, whole.text]).toEqual(['It is noon.', 'It is still noon.']);
      expect(service.sim.requestsTo(api)).toHaveLength(2);
      expect(service.sim.requestsTo(other)).toHaveLength(0);
    },
  );

  it.each(['chat', 'messages'] as const)(
    'service.api %s: the request is checked as its client sends it (messages: the system prompt as items)',
    (api) => {
      const found = replyEndpoint(configFor(api)).check(history);
      expect([found.errors, found.warnings]).toEqual([[], []]);
    },
  );

  it.each(['chat', 'messages'] as const)(
    "service.api %s: the request is judged by that endpoint's model list",
    (api) => {
      const config = configFor(api);
      config.chat.model = 'no-such-model';
      expect(replyEndpoint(config).check(history).warnings).toEqual([
        expect.stringContaining(`is not in edition A's ${api} list`),
      ]);
    },
  );
});
