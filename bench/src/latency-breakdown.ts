/**
 * hark's own overhead at each hand-over of a turn, measured inside its process: from the moment
 * undici has what the stage waits for to the moment undici writes the next request (or the
 * player is written to), split into hark's own time and the machine's load (see probe.ts). The
 * stand-in writing its answer, the kernel, and the stand-in waking up to read the next request
 * are outside these bounds; the stand-in's view of the same hand-overs is in `standInView`.
 */
import type { Turn } from '../../dist/dialog/turn.js';
import { split, type HttpMoment, type Split } from './probe.js';
import type { RemoteRequest } from './sim-client.js';

const CHAT = '/v1/chat/completions';
const SPEECH = '/v1/audio/speech';
const TRANSCRIPTION = '/v1/audio/transcriptions';

export interface HandOvers {
  /** The transcription's answer complete in hark → the chat request's bytes about to be written. */
  chat?: Split;
  /** The chat chunk that completed the first sentence in hark → the speech request's bytes about to be written. */
  speech?: Split;
  /** The first speech bytes in hark (or the turn confirmed, if later) → written to the player (wall ms). */
  playerMs?: number;
}

export function handOvers(turn: Turn, moments: HttpMoment[]): HandOvers {
  const t = turn.timings;
  const out: HandOvers = {};
  const chatCreate = t.chatRequest === undefined ? undefined : after(moments, CHAT, 'create', t.chatRequest);
  const chatSent = chatCreate && after(moments, CHAT, 'sendHeaders', chatCreate.atMs);
  const answered = chatCreate && before(moments, TRANSCRIPTION, 'trailers', chatCreate.atMs);
  if (chatSent && answered) out.chat = split(answered, chatSent);
  const sentence = t.firstSentence;
  const speechCreate = sentence === undefined ? undefined : after(moments, SPEECH, 'create', sentence);
  const speechSent = speechCreate && after(moments, SPEECH, 'sendHeaders', speechCreate.atMs);
  const words = sentence === undefined ? undefined : before(moments, CHAT, 'bodyChunk', sentence);
  if (speechSent && words) out.speech = split(words, speechSent);
  const pcm = speechSent && after(moments, SPEECH, 'bodyChunk', speechSent.atMs);
  if (pcm && t.firstWrite !== undefined) out.playerMs = t.firstWrite - Math.max(pcm.atMs, t.endpointed);
  return out;
}

/**
 * The same hand-overs as the stand-in saw them (in its own process): its answer written → the
 * next request seen. Beside hark's work, both processes waking up and the stand-in's parsing.
 */
export function standInView(turn: Turn, requests: RemoteRequest[]): { chat: number; speech: number; player: number } {
  const t = turn.timings;
  const of = (endpoint: string) => requests.filter((r) => r.endpoint === endpoint);
  const [transcriptions, chats, speech] = [of('transcription'), of('chat'), of('speech')];
  const chat = chats.find((r) => r.receivedAtMs >= (t.chatRequest ?? NaN) - 1);
  const answeredBefore = transcriptions
    .map((r) => r.firstBodyByteAtMs ?? NaN)
    .filter((at) => at <= (chat?.receivedAtMs ?? NaN));
  const tts = speech.find((r) => r.receivedAtMs >= (t.firstSentence ?? NaN) - 1);
  return {
    chat: (chat?.receivedAtMs ?? NaN) - Math.max(...answeredBefore),
    speech: (tts?.receivedAtMs ?? NaN) - (t.firstSentence ?? NaN),
    player: (t.firstWrite ?? NaN) - Math.max(tts?.firstBodyByteAtMs ?? NaN, t.endpointed),
  };
}

/** The first such moment at or after `atMs` (less a millisecond: marks and moments are read a little apart). */
function after(moments: HttpMoment[], path: string, channel: HttpMoment['channel'], atMs: number) {
  return moments.find((m) => m.path === path && m.channel === channel && m.atMs >= atMs - 1);
}

function before(moments: HttpMoment[], path: string, channel: HttpMoment['channel'], atMs: number) {
  return moments.filter((m) => m.path === path && m.channel === channel && m.atMs <= atMs).at(-1);
}
