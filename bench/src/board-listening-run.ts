/**
 * One build's listening thread at real time (started by board-listening.ts inside the cap): the
 * daemon's Silero and live wake-word detector with the default configuration, fed 32 ms frames
 * from a raw file as a microphone would, each frame to both; prints, as JSON, how long each
 * frame's speech probability took to come back.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as Thread from '../../dist/app/adapters/listening-thread.js';
import type * as Messages from '../../dist/app/adapters/listening-messages.js';
import type * as Load from '../../dist/config/load.js';
import type * as Models from '../../dist/listen/wake/wake-models.js';
import type * as Settings from '../../dist/listen/wake/wake-settings.js';

const [root, audioPath] = process.argv.slice(2) as [string, string];
const load = <T>(path: string) => import(join(root, 'dist', path)) as Promise<T>;
const { ListeningThread } = await load<typeof Thread>('app/adapters/listening-thread.js');
const { sileroGate } = await load<typeof Messages>('app/adapters/listening-messages.js');
const { loadConfig } = await load<typeof Load>('config/load.js');
const { resolveWakeModels } = await load<typeof Models>('listen/wake/wake-models.js');
const { LIVE_DETECTOR } = await load<typeof Settings>('listen/wake/wake-settings.js');

const FRAME = 512;
const FRAME_MS = 32;
const { config } = loadConfig({ env: {} });
const thread = new ListeningThread({
  silero: sileroGate(config.vad),
  wake: { options: { ...config.wake, ...LIVE_DETECTOR }, files: resolveWakeModels(config.wake.models) },
});
const [vad, wake] = await Promise.all([thread.vad, thread.wake]);
if (!vad || !wake) throw new Error('the listening thread loaded no Silero or no wake word');
const bytes = readFileSync(audioPath);
const audio = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
const answered: Promise<number>[] = [];
const start = performance.now();
for (let f = 0; (f + 1) * FRAME <= audio.length; f++) {
  const wait = start + f * FRAME_MS - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  const frame = audio.subarray(f * FRAME, (f + 1) * FRAME);
  const sent = performance.now();
  answered.push(Promise.resolve(vad.probability(frame)).then(() => performance.now() - sent));
  wake.push(frame);
}
const answerMs = await Promise.all(answered);
await wake.drain();
await Promise.all([vad.close(), wake.close()]);
process.stdout.write(`${JSON.stringify({ answerMs })}\n`);
