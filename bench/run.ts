/** `npm run bench`: every benchmark, each printing a table and writing JSON to bench/results/. */
import { benchChatClient } from './chat-client.js';

const only = process.argv[2];
const benches: Record<string, () => Promise<unknown>> = {
  'chat-client': () => benchChatClient(),
};

for (const [name, run] of Object.entries(benches)) {
  if (only && only !== name) continue;
  await run();
}
