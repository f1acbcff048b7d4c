/**
 * Sounds for the room loop: hark's voice (espeak-ng sentences, as the stand-in speaks them, at
 * the player's 24 kHz), and the user's side of the room from the labelled fixtures of
 * test/fixtures/speech (real speech, and the cough, door and knock clips), with the labels that
 * were made by hand, not by hark.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { samplesOf } from '../../dist/audio/pcm.js';
import { readWavInfo } from '../../dist/audio/wav-header.js';
import { atLevel } from '../dist/room/test/room/room.js';
import { renderSpeech } from '../../dist/sim/voice.js';
import { FIXTURES } from './fixtures.js';
import type { LabelledClip } from './room-loop.js';

/** Level of everyone's normal speech and of hark's voice, dBFS (active speech level). */
export const SPEECH_DBFS = -26;

/** hark's replies: sentences said by espeak-ng. Each reply is a few of them. */
/** No commas: the splitter may start a reply with its first clause, and the bank has whole sentences. */
export const REPLY_SENTENCES = [
  'The tallest mountain on Earth is Mount Everest.',
  'It rises eight thousand eight hundred and forty nine metres above the sea.',
  'Climbers from all over the world try to reach its summit every spring.',
  'The weather there changes quickly so most of them turn back before the top.',
  'Tomorrow will be cloudy in the morning with some sun in the afternoon.',
  'Take an umbrella if you go out after six because rain is likely then.',
  'Your next meeting is at half past two with the design team.',
  'I have added milk eggs and bread to your shopping list.',
  'The train to the city leaves at seven minutes past the hour.',
  'A kilometre is a little more than six tenths of a mile.',
  'The recipe needs two cups of flour and one cup of sugar.',
  'Bake it for forty minutes until the top is golden brown.',
];

/** Replies of two to four sentences (about four to ten seconds of speech), drawn from the sentences in order. */
export function replyBank(): string[][] {
  const replies: string[][] = [];
  for (let i = 0; i < REPLY_SENTENCES.length; i++) {
    for (const length of [2, 3, 4]) {
      replies.push(Array.from({ length }, (_, j) => REPLY_SENTENCES[(i + j) % REPLY_SENTENCES.length] as string));
    }
  }
  return replies;
}

/** Long replies (six sentences, about fifteen seconds): room for an interruption anywhere in the first seconds. */
export function longReplyBank(): string[][] {
  return REPLY_SENTENCES.map((_, i) =>
    Array.from({ length: 6 }, (_, j) => REPLY_SENTENCES[(i + j) % REPLY_SENTENCES.length] as string),
  );
}

/** Each sentence in espeak-ng's voice, 24 kHz, at the speech level. */
export async function harkVoice(sentences = REPLY_SENTENCES): Promise<Map<string, Int16Array>> {
  const voice = new Map<string, Int16Array>();
  for (const text of sentences) {
    const pcm = await renderSpeech(
      { text, sampleRateHz: 24000, speed: 1, volume: 1, pitch: 1, voice: undefined },
      'espeak',
    );
    voice.set(text, atLevel(pcm, SPEECH_DBFS));
  }
  return voice;
}

interface Labels {
  speech: { startMs: number; endMs: number }[];
  nonSpeech: { startMs: number; endMs: number; what: string }[];
}

/** A labelled clip of test/fixtures/speech, at `levelDbfs` (active speech level; as recorded when undefined). */
export function labelledClip(name: string, levelDbfs?: number): LabelledClip {
  const dir = join(FIXTURES, 'speech');
  const wav = readFileSync(join(dir, `${name}.wav`));
  const info = readWavInfo(wav);
  const samples = samplesOf(Buffer.from(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes)));
  const labels = JSON.parse(readFileSync(join(dir, `${name}.labels.json`), 'utf8')) as Labels;
  return {
    name,
    samples: levelDbfs === undefined ? samples : atLevel(samples, levelDbfs),
    speech: labels.speech,
    sounds: labels.nonSpeech,
  };
}

/** What each speech clip says, as far as the benchmark's recogniser is concerned. */
export const CLIP_WORDS: Record<string, string> = {
  'speech-a': 'what will the weather be like in the mountains this weekend',
  'speech-a-quiet': 'what will the weather be like in the mountains this weekend',
  'speech-b': 'how far is it to the station',
  'speech-c': 'wait tell me about the train instead',
  'speech-d': 'hold on I meant the other one the one we talked about yesterday',
  'speech-e': 'no that is not what I asked about at all',
};

/** Clips of one stretch of speech each (speech-d has a pause of a second in it, so it is two turns by design). */
export const ONE_STRETCH = ['speech-a', 'speech-b', 'speech-c', 'speech-e'];
export const ALL_SPEECH = ['speech-a', 'speech-b', 'speech-c', 'speech-d', 'speech-e'];
export const FALSE_INTERRUPTIONS = ['cough', 'door', 'knock'];
