import { readWavInfo } from '../../audio/wav-header.js';
import { LIMITS, charCount, secondsAgainst } from '../limits.js';
import { speechStreamFormats, type Edition } from '../models.js';
import { Checker, isObject, measured } from './checker.js';
import { checkModel } from './model.js';

const WAV_MIME_TYPES = ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'];
const DATA_URL = /^data:([^;,]+)((?:;[^;,]+)*);base64,/;

/** What is wrong with a speech-synthesis request body. */
export function checkSpeechBody(request: unknown, edition: Edition): Checker {
  const check = new Checker();
  const body = check.objectBody(request);
  if (!body) return check;
  const limits = LIMITS.speech;
  const model = body.model;
  checkModel(check, 'speech', edition, model);
  const input = body.input;
  if (typeof input !== 'string' || input.length === 0) {
    check.fail('input', `must be text of 1 to ${limits.inputMaxChars} characters, not null or empty`, input);
  } else if (charCount(input) > limits.inputMaxChars) {
    check.fail(
      'input',
      `must be at most ${limits.inputMaxChars} characters`,
      measured(`${charCount(input)} characters`),
    );
  }
  check.optionalString('voice', body.voice);
  check.optionalString('instructions', body.instructions);
  checkReferences(check, body.references);
  if (body.voice !== undefined && body.references !== undefined) {
    check.warn('both voice and references are set; the reference clip decides the voice');
  }
  check.oneOf('response_format', body.response_format, limits.responseFormats);
  check.oneOf('sample_rate', body.sample_rate, limits.sampleRatesHz);
  check.range('speed', body.speed, limits.speed);
  check.range('volume', body.volume, limits.volume);
  check.range('pitch', body.pitch, limits.pitch);
  if (check.oneOf('stream_format', body.stream_format, limits.streamFormats) && typeof model === 'string') {
    const format = body.stream_format;
    if (format !== undefined && !speechStreamFormats(model).includes(format)) {
      check.fail('stream_format', `${model} supports only ${speechStreamFormats(model).join(', ')}`, format);
    }
  }
  return check;
}

function checkReferences(check: Checker, references: unknown): void {
  if (references === undefined) return;
  const limits = LIMITS.speech;
  if (!Array.isArray(references)) {
    check.fail('references', 'must be an array of {audio, text}', references);
    return;
  }
  if (references.length > limits.maxReferences) {
    check.fail('references', `at most ${limits.maxReferences} entry`, measured(`${references.length} entries`));
  }
  references.forEach((reference: unknown, i) => {
    const at = `references[${i}]`;
    if (!isObject(reference)) {
      check.fail(at, 'must be {audio, text}', reference);
      return;
    }
    check.requiredString(`${at}.text`, reference.text);
    const problem = referenceAudioProblem(reference.audio);
    if (problem)
      check.fail(`${at}.audio`, problem.limit, problem.actual === undefined ? undefined : measured(problem.actual));
  });
}

/** Why a reference clip's data URL breaks the limits, or undefined when it is fine. */
export function referenceAudioProblem(audio: unknown): { limit: string; actual?: string } | undefined {
  const limits = LIMITS.speech;
  if (typeof audio !== 'string') return { limit: 'is required: a WAV data URL (data:audio/wav;base64,...)' };
  const match = DATA_URL.exec(audio);
  if (!match) return { limit: 'must be a data URL: data:audio/wav;base64,<base64 of the file>' };
  if (!WAV_MIME_TYPES.includes((match[1] ?? '').toLowerCase())) {
    return { limit: 'must be WAV audio (audio/wav)', actual: match[1] };
  }
  if (audio.length > limits.referenceMaxEncodedBytes) {
    return {
      limit: `must be at most ${limits.referenceMaxEncodedBytes} bytes as a data URL`,
      actual: `${audio.length} bytes`,
    };
  }
  try {
    const info = readWavInfo(Buffer.from(audio.slice(match[0].length), 'base64'));
    if (info.durationMs > limits.referenceMaxDurationMs) {
      return {
        limit: `clip must be at most ${limits.referenceMaxDurationMs / 1000} s`,
        actual: secondsAgainst(info.durationMs, limits.referenceMaxDurationMs),
      };
    }
  } catch (error) {
    return { limit: `must hold a readable WAV file: ${(error as Error).message}` };
  }
  return undefined;
}
