/**
 * One fresh process (forked by warm-start.ts): warm up as the daemon does (or only as it did
 * before: the text stages), then time what the first turn runs on its critical path in hark's
 * own code: the judgement of the guess's words, the chat request built, checked and serialized,
 * and a turn's speaking half (make-believe reply, voice and player, as in warm-up.ts).
 */
import './as-hark-runs.js';
import { warmUp } from '../../dist/app/compose/warm-up.js';
import { defaultConfig } from '../../dist/config/schema.js';
import { checkChatBody } from '../../dist/contract/rules/chat.js';
import { buildChatRequest } from '../../dist/dialog/reply-request.js';
import { judgeTurnEnd } from '../../dist/dialog/turn-end.js';

const config = defaultConfig();
const startedMs = performance.now();
await (process.argv[2] === 'full' ? warmUp(config) : warmUp());
const warmUpMs = performance.now() - startedMs;
const t0 = performance.now();
judgeTurnEnd('What time is it in Tokyo?');
const request = {
  ...buildChatRequest(config.chat, [{ role: 'user', text: 'What time is it in Tokyo?' }]),
  stream: true,
};
checkChatBody(request, config.service.edition);
JSON.stringify(request);
const requestMs = performance.now() - t0;
// The same make-believe turn the full warm-up runs, now timed: cold unless warmed.
const t1 = performance.now();
await warmUp(config);
const turnMs = performance.now() - t1;
process.send?.({ warmUpMs, requestMs, turnMs });
process.disconnect?.();
