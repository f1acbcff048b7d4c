import { turnLatencies, type Turn } from '../../dialog/turn.js';
import type { AssistantEvent } from '../../pipeline/events.js';
import type { PageEvent, TurnSummary } from '../../web/page-json.js';
import { turnFailure } from '../adapters/log-events.js';

/** One turn as the page shows it, with the same latencies and failure stage as the turn's log line. */
export function turnSummary(turn: Turn, id: number, endedAt: Date): TurnSummary {
  const cut = turn.interrupted !== false || turn.failed !== undefined;
  const unheard = !cut ? '' : turn.reply.startsWith(turn.heard) ? turn.reply.slice(turn.heard.length) : turn.reply;
  return {
    id,
    endedAt: endedAt.toISOString(),
    transcript: turn.query.text,
    reply: turn.reply,
    heard: turn.heard,
    unheard: unheard.trimStart(),
    interrupted: turn.interrupted,
    ...(turn.failed ? { failed: { ...turnFailure(turn.failed), error: turn.failed.message } } : {}),
    usage: turn.usage ? { inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens } : null,
    latencyMs: turnLatencies(turn),
    audioMs: turn.audioMs,
  };
}

/**
 * The voice loop's events as the page gets them, from the stream the log is written from:
 * audio and per-frame events are left out (the meters stand for them), errors become their
 * message, turns their summary. An event this page does not know (a tool call) passes as it is,
 * as JSON can carry it.
 */
export function pageEvents(now: () => Date = () => new Date()): (event: AssistantEvent) => PageEvent | undefined {
  let lastSpeech = -1;
  let turns = 0;
  return (event) => {
    switch (event.type) {
      case 'silence':
      case 'tentative':
      case 'utterance':
      case 'discarded':
      case 'no-wake-word':
        return undefined;
      case 'speech':
        if (event.id === lastSpeech) return undefined;
        lastSpeech = event.id;
        return { type: 'speech', utteranceId: event.id };
      case 'meter':
        return {
          type: 'meter',
          levelDbfs: event.levelDbfs,
          vad: event.vad,
          ...(event.wake ? { wake: event.wake } : {}),
          ...(event.echo
            ? {
                echo: {
                  active: event.echo.active,
                  delayMs: Math.round(event.echo.delayMs),
                  erleDb: event.echo.erleDb === null ? null : Math.round(event.echo.erleDb * 10) / 10,
                  adapted: event.echo.adapted,
                },
              }
            : {}),
        };
      case 'transcript': {
        const { utteranceId, text, tentative } = event.transcript;
        return { type: 'transcript', utteranceId, text, tentative };
      }
      case 'retracted':
      case 'empty':
        return { type: event.type, utteranceId: event.utteranceId };
      case 'transcription-failed':
        return { type: 'transcription-failed', utteranceId: event.utteranceId, error: event.error.message };
      case 'query':
        return { type: 'query', utteranceId: event.query.transcript.utteranceId, text: event.query.text };
      case 'wake':
        return { type: 'wake', phrase: event.phrase, ...(event.score === undefined ? {} : { score: event.score }) };
      case 'stop':
        return { type: 'stop', text: event.transcript.text };
      case 'ignored':
        return { type: 'ignored', reason: event.reason, text: event.transcript.text };
      case 'state':
        return { type: 'state', state: event.state };
      case 'saying':
        return { type: 'saying', index: event.sentence.index, text: event.sentence.text };
      case 'interruption':
        return { type: 'interruption', phase: event.phase };
      case 'barge-in':
        return { type: 'barge-in', by: event.by, onsetToStopMs: event.onsetToStopMs ?? null, heardMs: event.heardMs };
      case 'turn':
        return { type: 'turn', turn: turnSummary(event.turn, ++turns, now()) };
      default:
        return asJson(event);
    }
  };
}

/** An event of a kind this file does not know, as plain JSON: errors as their message, audio left out. */
function asJson(event: { type: string }): PageEvent {
  return JSON.parse(
    JSON.stringify(event, (_key, value: unknown) => {
      if (value instanceof Error) return value.message;
      if (ArrayBuffer.isView(value)) return undefined;
      // A Buffer has become {type: 'Buffer', data: [...]} by now.
      if (typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'Buffer')
        return undefined;
      return value;
    }),
  ) as PageEvent;
}
