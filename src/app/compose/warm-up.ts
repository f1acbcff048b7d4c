import { BehaviorSubject, NEVER, from, lastValueFrom, of, toArray } from 'rxjs';
import { silentEarcons } from '../../audio/earcons.js';
import type { HarkConfig } from '../../config/schema.js';
import type { ReplyEvent } from '../../contract/reply.js';
import { checkSpeechBody } from '../../contract/rules/speech.js';
import { newConversation, type Message } from '../../dialog/conversation.js';
import { judgeTurnEnd } from '../../dialog/turn-end.js';
import type { Transcript } from '../../dialog/turn.js';
import { answerQuery } from '../../pipeline/answer-query.js';
import type { Player } from '../../pipeline/ports.js';
import { speakableText } from '../../pipeline/speakable-text.js';
import { splitSentences } from '../../pipeline/split-sentences.js';
import { afterIo } from '../../system/after-io.js';
import { speechRequest } from '../adapters/configured-voice.js';
import { replyEndpoint } from '../adapters/reply-endpoint.js';

const SAMPLE: ReplyEvent[] = [
  { type: 'text', text: '**Warm** up: the first reply. ' },
  { type: 'text', text: 'It is 8 km, then 你好。The end' },
  { type: 'done', stopReason: 'stop', usage: undefined },
];

/** Guesses at a pause as the first turn may hear them: unfinished, complete, unsure; English and Chinese. */
const GUESSES = ['Add eggs and', 'What time is it?', 'Turn it up', '现在几点？', '还有'];

export type WarmUpConfig = Pick<HarkConfig, 'chat' | 'speech' | 'service'>;

/** Plays nothing, at once. */
function silentPlayer(sampleRateHz: number): Player {
  let written = 0;
  return {
    sampleRateHz,
    write: (pcm) => (written += pcm.length / 2),
    playedSamples: () => written,
    writtenSamples: () => written,
    queuedMs: () => 0,
    queuedBelow: () => of(undefined),
    stop: () => undefined,
    pause: () => undefined,
    resume: () => undefined,
    close: () => Promise.resolve(),
    failures: NEVER,
  };
}

/**
 * Runs what the first turn runs before listening, so it does not pay for building
 * Intl.Segmenter's sentence data (tens of ms) and compiling code on first use: the reply's text
 * stages, the judgement of a guess's words, and (given the configuration) building and checking
 * the reply and speech requests as they will be sent, and one turn's speaking half with a
 * reply, a voice and a player that are make-believe. Nothing is sent and nothing sounds.
 */
export async function warmUp(config?: WarmUpConfig): Promise<void> {
  await lastValueFrom(from(SAMPLE).pipe(speakableText(), splitSentences(), toArray()));
  for (const words of GUESSES) judgeTurnEnd(words);
  if (!config) return;
  warmRequests(config);
  await warmTurn(config.speech);
}

async function warmTurn(speech: WarmUpConfig['speech']): Promise<void> {
  const answer = answerQuery({
    speech,
    conversation: new BehaviorSubject(newConversation()),
    replyModel: { reply: () => from(SAMPLE) },
    synthesizer: { sampleRateHz: speech.sampleRateHz, synthesize: () => of(Buffer.alloc(640)) },
    player: silentPlayer(speech.sampleRateHz),
    earcons: silentEarcons,
    afterIo,
    now: () => performance.now(),
  });
  const at = performance.now();
  const transcript: Transcript = {
    utteranceId: 0,
    text: 'What time is it?',
    parts: 1,
    audioMs: 1000,
    speechEndedAt: at,
    endpointedAt: at,
    transcriptionRequestAt: at,
    transcriptAt: at,
    overlapped: false,
    tentative: false,
    droppedGuesses: 0,
  };
  const control = { cut: NEVER, start: of(transcript), text: of(transcript.text), droppedReplies: 0 };
  await lastValueFrom(answer({ text: transcript.text, transcript }, control).pipe(toArray()));
}

function warmRequests(config: WarmUpConfig): void {
  const history: Message[] = [
    { role: 'user', text: 'What time is it?' },
    { role: 'assistant', text: 'It is noon.' },
    { role: 'user', text: 'And in Tokyo?' },
  ];
  // Checked, not enforced: a request the service would refuse is reported when it is made, as before.
  replyEndpoint(config).check(history);
  const said = { ...speechRequest('It is noon.', config.speech), stream_format: 'sse' };
  checkSpeechBody(said, config.service.edition);
  JSON.stringify(said);
}
