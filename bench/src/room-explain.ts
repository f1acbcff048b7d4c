/**
 * Why did hark do that? One room loop run with its per-frame trace printed around every
 * self-interruption (echo runs) or every missed or slow interruption (interruption runs):
 *
 *   node bench/dist/room-explain.js echo 2 6      # seed 2, echo +6 dB
 *   node bench/dist/room-explain.js interrupt 1   # seed 1, echo 0 dB
 *
 * ROOM_CONFIG='{"vad":{"speakingStartThreshold":0.8}}' changes hark's configuration for the run;
 * ROOM_UNDERRUNS=1 has the sound server run dry as the room bench's does (every ~20 s for 48 ms).
 */
import type { HarkConfig } from '../../dist/config/schema.js';
import { harkVoice } from './room-audio.js';
import { echoOnly, interruptions } from './room-scenarios.js';
import { printTrace } from './room-trace.js';

const [which = 'echo', seedText = '1', echoText = '0'] = process.argv.slice(2);
const change = JSON.parse(process.env.ROOM_CONFIG ?? '{}') as Record<string, Record<string, unknown>>;
const configure = (config: HarkConfig): void => {
  for (const [section, values] of Object.entries(change)) {
    Object.assign((config as unknown as Record<string, object>)[section] as object, values);
  }
};
const underruns = process.env.ROOM_UNDERRUNS ? { everyMs: 20_000, gapMs: 48 } : undefined;
const options = { seed: Number(seedText), voice: await harkVoice(), echoDb: Number(echoText), configure, underruns };
const speakingSince = (events: { at: number; event: { type: string; state?: string } }[], at: number) =>
  [...events].reverse().find((e) => e.at <= at && e.event.type === 'state' && e.event.state === 'speaking')?.at;

if (which === 'echo') {
  const { loop, ...figures } = await echoOnly(options, Number(process.env.ROOM_REPLIES ?? 50));
  console.log(figures, `delay ${loop.room.options.delayMs} ms, RT60 ${loop.room.options.rt60Ms} ms`);
  for (const { at, event } of loop.events) {
    if (event.type !== 'interruption' || event.phase !== 'confirmed' || loop.user.speechIn(at - 1000, at + 1).length)
      continue;
    console.log(`--- self-interruption at ${at} ms (speaking since ${speakingSince(loop.events, at)})`);
    printTrace(loop, at - 700, at);
  }
} else {
  const { loop, ...run } = await interruptions(options, Number(process.env.ROOM_INTERRUPTIONS ?? 40));
  console.log(`delay ${loop.room.options.delayMs} ms, RT60 ${loop.room.options.rt60Ms} ms`, run.falseInterruptions);
  for (const i of run.interruptions) {
    if (i.detected && (i.stoppedMs ?? Infinity) <= 500) continue;
    console.log(`--- interruption ${JSON.stringify(i)}`);
    printTrace(loop, i.onsetMs - 200, i.onsetMs + 1200);
  }
}
