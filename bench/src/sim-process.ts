/**
 * The stand-in service in its own process, so that a benchmark measures only the client's
 * CPU. Controlled over IPC: script replies, read request records.
 */
import { startSim, type SimOptions } from '../../dist/sim/server.js';
import type { ReplyScript, TranscriptScript } from '../../dist/sim/script.js';
import type { VoiceEngine } from '../../dist/sim/voice.js';

type Command =
  | { type: 'reply'; replies: ReplyScript[] }
  | { type: 'transcript'; texts: (string | TranscriptScript)[] }
  | { type: 'requests' }
  | { type: 'reset' }
  | { type: 'voice'; engine: VoiceEngine };

const options = JSON.parse(process.argv[2] ?? '{}') as SimOptions;
const sim = await startSim(options);
process.send?.({ type: 'ready', url: sim.url, apiKey: sim.apiKey });
process.on('message', (command: Command) => {
  if (command.type === 'reply') sim.script.reply(...command.replies);
  else if (command.type === 'transcript') sim.script.transcript(...command.texts);
  else if (command.type === 'voice') sim.voiceEngine = command.engine;
  else if (command.type === 'reset') {
    sim.script.clear();
    sim.requests.length = 0;
  } else if (command.type === 'requests') {
    process.send?.({
      type: 'requests',
      requests: sim.requests.map((r) => ({
        endpoint: r.endpoint,
        status: r.status,
        outcome: r.outcome,
        receivedAtMs: r.receivedAtMs,
        firstBodyByteAtMs: r.firstBodyByteAtMs,
        events: r.events,
      })),
    });
    return;
  }
  process.send?.({ type: 'ok' });
});
process.on('disconnect', () => void sim.close().then(() => process.exit(0)));
