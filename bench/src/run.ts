/** `npm run bench`: every benchmark, each printing a table and writing JSON to bench/results/. */
import './as-hark-runs.js';
import { benchChatClient } from './chat-client.js';
import { benchSentences } from './sentences.js';
import { benchVad } from './vad.js';
import { benchLatency } from './latency.js';
import { benchHesitation } from './hesitation.js';
import { benchStartup } from './startup.js';
import { benchWarmStart } from './warm-start.js';
import { benchBargeIn } from './barge-in.js';
import { benchMemory } from './memory.js';
import { benchAec } from './aec.js';
import { benchWake } from './wake.js';
import { benchRoom } from './room.js';
import { benchTranscribeMemory } from './transcribe-memory.js';
import { benchTools } from './tools.js';
import { benchWeb } from './web.js';
import { benchHome } from './home.js';
import { benchBoard } from './board.js';

const only = process.argv[2];
const benches: Record<string, () => Promise<unknown>> = {
  'chat-client': () => benchChatClient(),
  sentences: () => benchSentences(),
  vad: () => benchVad(),
  latency: () => benchLatency(),
  hesitation: () => benchHesitation(),
  startup: () => benchStartup(),
  'warm-start': () => benchWarmStart(),
  'barge-in': () => benchBargeIn(),
  memory: () => benchMemory(),
  aec: () => benchAec(),
  wake: () => benchWake(),
  room: () => benchRoom(),
  'transcribe-memory': () => benchTranscribeMemory(),
  tools: () => benchTools(),
  web: () => benchWeb(),
  home: () => benchHome(),
  board: () => benchBoard(),
};

// Run only when named: it needs root and a sound server, and takes about half an hour.
const namedOnly = new Set(['board']);

for (const [name, run] of Object.entries(benches)) {
  if (only ? only !== name : namedOnly.has(name)) continue;
  await run();
}
