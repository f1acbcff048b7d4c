/**
 * What the stand-in says in the small-board bench's room run (board-room.ts), when, and in
 * which voice.
 */
import { hasEspeak, type VoiceEngine } from '../../dist/sim/voice.js';
import type { RemoteSim } from './sim-client.js';

/**
 * The stand-in's delays, as in the latency bench. The questions are answered in its synthetic
 * voice, whose rendering takes no time: espeak-ng's would take longer the busier the machine.
 */
export const DELAYS = {
  transcriptionDelayMs: 100,
  ttftMs: 200,
  tokensPerSecond: 1000,
  ttsFirstByteMs: 150,
  ttsRealtimeFactor: 4,
};
export const REPLY = 'Yes, of course, that is right.';

/**
 * The voice of the replies talked over: espeak-ng's speech. The synthetic voice is a harmonic
 * tone per syllable, whose echo matches its reference at whole pitch periods as well as at its
 * delay: in one uncapped room run the canceller re-aligned 19 times (to 0 and 400 ms among
 * others) and hark paused its reply 20 times, against 5 and 7 with espeak-ng.
 */
export function storyVoice(): VoiceEngine {
  if (hasEspeak()) return 'espeak';
  console.warn(
    'espeak-ng is not installed: the replies talked over are in the synthetic voice, and barge-in is not measured on speech',
  );
  return 'synthetic';
}

/** One long sentence: a pause after a sentence would leave the user talking over silence. */
export const STORY =
  'Once upon a time a small robot lived in a lighthouse by the sea, and every night it climbed the stairs, trimmed the wick, wound the clockwork and watched the ships go by, counting their lights one by one, until the morning came and the gulls woke up and the fishermen went out again';

/**
 * What the stand-in answers next. hark may send what it heard before the question's end (the
 * wake word alone, at the pause after it) and take it back: each is scripted a few times over.
 */
export async function script(sim: RemoteSim, transcript: string, reply: string): Promise<void> {
  await sim.reset();
  for (let i = 0; i < 3; i++) {
    await sim.transcript(transcript);
    await sim.reply({ text: reply });
  }
}
