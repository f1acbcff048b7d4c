import type { Transcript, Turn } from '../../src/dialog/turn.js';

export function transcript(text: string): Transcript {
  return {
    utteranceId: 1,
    text,
    parts: 1,
    audioMs: 1000,
    speechEndedAt: 0,
    endpointedAt: 0,
    transcriptionRequestAt: 0,
    transcriptAt: 0,
    overlapped: false,
    tentative: false,
    droppedGuesses: 0,
  };
}

/** A turn over "what time is it?" that ended at `endedAt`; cut turns heard `heard`. */
export function turnEndingAt(
  endedAt: number,
  interrupted: Turn['interrupted'] = false,
  heard = interrupted ? '' : 'Noon.',
  failed?: Error,
): Turn {
  return {
    query: { text: 'what time is it?', transcript: transcript('Hey hark, what time is it?') },
    reply: 'Noon. Lunch time.',
    heard,
    interrupted,
    failed,
    usage: undefined,
    timings: { speechEnd: 0, endpointed: 0, transcriptionRequest: 0, transcript: 0 },
    sentences: 2,
    stoppedAt: undefined,
    endedAt,
    audioMs: { written: 500, played: 500 },
    extraRequests: { transcriptions: 0, replies: 0 },
    tools: [],
  };
}
