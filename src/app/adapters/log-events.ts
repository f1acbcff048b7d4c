import { tap, type MonoTypeOperatorFunction } from 'rxjs';
import { PLAYBACK_FIX, PlaybackError } from '../../audio/playback-error.js';
import { turnLatencies, type Turn } from '../../dialog/turn.js';
import type { AssistantEvent, NoticeEvent } from '../../pipeline/events.js';
import type { Logger } from '../../system/logger.js';
import { API_KEY_FIX } from '../../config/load.js';
import { ServiceError } from '../../service/service-error.js';
import { RequestValidationError } from '../../contract/validation-error.js';

const SPEECH_FIELDS =
  /^(input|references|voice|instructions|sample_rate|speed|volume|pitch|response_format|stream_format)\b/;

/**
 * Which stage of a turn failed, from its error: the service call it came from (the reply, or
 * the synthesis of a sentence), a request refused before it was sent, or else the player.
 */
export function failedStage(error: Error): 'reply' | 'synthesis' | 'transcription' | 'playback' {
  if (error instanceof ServiceError) {
    if (error.endpoint === 'speech') return 'synthesis';
    return error.endpoint === 'transcription' ? 'transcription' : 'reply';
  }
  if (error instanceof RequestValidationError) return SPEECH_FIELDS.test(error.field) ? 'synthesis' : 'reply';
  return 'playback';
}

/** What the user can do about a failure, when hark knows. */
export function failureFix(error: Error): string | undefined {
  if (error instanceof PlaybackError) return PLAYBACK_FIX;
  if (error instanceof ServiceError && error.status === 401) return API_KEY_FIX;
  return undefined;
}

/** Why a turn failed, for its log line and the page: the stage, the error, and the fix when there is one. */
export function turnFailure(error: Error): { stage: ReturnType<typeof failedStage>; fix?: string } {
  const fix = failureFix(error);
  return { stage: failedStage(error), ...(fix ? { fix } : {}) };
}

/** The one structured line per turn. */
export function logTurn(logger: Logger, turn: Turn): void {
  const fields = {
    transcript: turn.query.text,
    reply: turn.reply,
    ...(turn.interrupted || turn.failed ? { heard: turn.heard } : {}),
    interrupted: turn.interrupted,
    ...(turn.failed ? { ...turnFailure(turn.failed), error: turn.failed } : {}),
    usage: turn.usage ?? null,
    transcriptionRequests: turn.query.transcript.parts,
    extraRequests: turn.extraRequests,
    latencyMs: turnLatencies(turn),
  };
  if (turn.failed) logger.error('turn', fields);
  else logger.info('turn', fields);
}

/**
 * A notice's lines: started, then spoken (with the milliseconds from its arrival to its speech
 * requested, its first audio, and its first sample played), stopped part-way, or failed.
 */
function logNotice(logger: Logger, event: NoticeEvent): void {
  const { id, kind, text, arrivedAt } = event.notice;
  const since = (at: number | undefined): number | undefined =>
    at === undefined ? undefined : Math.round(at - arrivedAt);
  switch (event.phase) {
    case 'started':
      logger.info('notice.started', { id, kind, text });
      return;
    case 'spoken':
      logger.info('notice.spoken', {
        id,
        kind,
        playedMs: event.playedMs,
        latencyMs: {
          speechRequest: since(event.timings.speechRequest),
          firstAudioByte: since(event.timings.firstAudioByte),
          firstSamplePlayed: since(event.timings.firstPlayed),
        },
      });
      return;
    case 'stopped':
      logger.info('notice.stopped', { id, kind, by: event.by });
      return;
    case 'failed':
      logger.error('notice.failed', { id, kind, error: event.error });
  }
}

/** Writes the log from the voice loop's events: what was heard, decided and said, one line each. */
export function logEvents(logger: Logger): MonoTypeOperatorFunction<AssistantEvent> {
  let lastSpeech = 0;
  return tap((event) => {
    switch (event.type) {
      case 'speech':
        if (event.id === lastSpeech) return;
        lastSpeech = event.id;
        logger.debug('listen.speech', { utterance: event.id, onsetMs: Math.round(event.onsetMs) });
        return;
      case 'utterance': {
        const { id, part, final, samples, sampleRateHz } = event.utterance;
        const ms = Math.round((samples.length / sampleRateHz) * 1000);
        logger.debug('listen.utterance', { utterance: id, part, final, ms });
        return;
      }
      case 'discarded':
        logger.debug('listen.discarded', { voicedMs: Math.round(event.voicedMs) });
        return;
      case 'empty':
        logger.info('turn.empty', { utterance: event.utteranceId, audioMs: Math.round(event.audioMs) });
        return;
      case 'transcription-failed':
        logger.error('turn.failed', { stage: 'transcription', utterance: event.utteranceId, error: event.error });
        return;
      case 'wake':
        logger.info('wake', {
          phrase: event.phrase,
          ...(event.score === undefined ? {} : { score: Math.round(event.score * 100) / 100 }),
          ...(event.atMs === undefined ? {} : { atMs: Math.round(event.atMs) }),
        });
        return;
      case 'stop':
        logger.info('turn.stopped', { transcript: event.transcript.text });
        return;
      case 'ignored':
        logger.debug('turn.ignored', { reason: event.reason, transcript: event.transcript.text });
        return;
      case 'state':
        logger.debug('assistant.state', { state: event.state });
        return;
      case 'turn':
        logTurn(logger, event.turn);
        return;
      case 'barge-in':
        logger.info('barge-in', {
          by: event.by,
          onsetMs: event.onsetMs,
          onsetToStopMs: event.onsetToStopMs,
          heardMs: event.heardMs,
        });
        return;
      case 'interruption':
        if (event.phase !== 'confirmed') logger.debug(`barge-in.${event.phase}`, { atMs: event.atMs });
        return;
      case 'saying':
        logger.debug('speak.sentence', { index: event.sentence.index, text: event.sentence.text });
        return;
      case 'no-wake-word':
        if (!event.tentative) logger.debug('listen.no_wake_word', { utterance: event.utteranceId });
        return;
      case 'retracted':
        logger.debug('transcript.retracted', { utterance: event.utteranceId });
        return;
      case 'tool':
        if (event.phase === 'started')
          logger.info('tool.call', { turn: event.turnId, callId: event.callId, name: event.name, args: event.args });
        else if (event.phase === 'finished')
          logger.info('tool.done', {
            turn: event.turnId,
            callId: event.callId,
            name: event.name,
            ms: event.ms,
            result: event.result,
          });
        else
          logger.warn('tool.failed', {
            turn: event.turnId,
            callId: event.callId,
            name: event.name,
            ms: event.ms,
            error: event.error,
          });
        return;
      case 'ring':
        if (event.phase === 'started') logger.info('ring.started', { ids: event.ids, text: event.text });
        else logger.info('ring.stopped', { ids: event.ids, by: event.by });
        return;
      case 'notice':
        logNotice(logger, event);
        return;
      case 'behind':
        logger.warn('listen.behind', {
          lagMs: event.lagMs,
          stage: event.stage,
          fix: 'this machine is too slow for what hark is asked to do: see "hark doctor" and "A small board" in docs/raspberry-pi.md',
        });
        return;
      case 'caught-up':
        logger.info('listen.caught-up', { behindMs: event.behindMs, worstLagMs: event.worstLagMs });
        return;
      case 'wake-pace':
        logger.info('listen.pace', { wakeWord: event.pace, backlogMs: event.backlogMs });
        return;
      case 'dropped':
        logger.error('listen.dropped', {
          droppedMs: event.droppedMs,
          stage: 'wake word',
          reason: 'the wake-word detector fell more than 30 s behind the microphone',
        });
        return;
      case 'tentative':
      case 'silence':
      case 'meter':
      case 'transcript':
      case 'query':
        return;
      default: {
        const unhandled: never = event;
        return unhandled;
      }
    }
  });
}
