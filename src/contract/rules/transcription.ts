import { extname } from 'node:path';
import { mp3DurationMs } from '../../audio/mp3-duration.js';
import { wavDurationMs } from '../../audio/wav-header.js';
import { LIMITS, secondsAgainst } from '../limits.js';
import type { Edition } from '../models.js';
import { Checker, measured } from './checker.js';
import { checkModel } from './model.js';

/** A transcription request as its multipart fields: text fields are strings on the wire. */
export interface TranscriptionFields {
  model?: unknown;
  file?: { name: string; bytes: Uint8Array } | undefined;
  language?: unknown;
  prompt?: unknown;
  response_format?: unknown;
  temperature?: unknown;
  /** Names of every other field sent. */
  otherFields?: readonly string[];
}

export function checkTranscriptionFields(fields: TranscriptionFields, edition: Edition): Checker {
  const check = new Checker();
  const limits = LIMITS.transcription;
  checkModel(check, 'transcription', edition, fields.model);
  checkFile(check, fields.file);
  check.optionalString('language', fields.language);
  check.optionalString('prompt', fields.prompt);
  if (typeof fields.prompt === 'string' && fields.prompt.length > limits.promptRecommendedMaxChars) {
    check.warn(
      `prompt is ${fields.prompt.length} characters; the service recommends under ${limits.promptRecommendedMaxChars}`,
    );
  }
  check.oneOf('response_format', fields.response_format, limits.responseFormats);
  const temperature = typeof fields.temperature === 'string' ? Number(fields.temperature) : fields.temperature;
  check.range('temperature', temperature, limits.temperature);
  for (const name of fields.otherFields ?? []) {
    if ((limits.unsupportedParameters as readonly string[]).includes(name)) {
      check.fail(name, 'is not supported by the transcription endpoint');
    }
  }
  return check;
}

function checkFile(check: Checker, file: TranscriptionFields['file']): void {
  const limits = LIMITS.transcription;
  if (!file) {
    check.fail('file', 'is required: a .wav or .mp3 file');
    return;
  }
  const extension = extname(file.name).toLowerCase();
  if (!(limits.fileExtensions as readonly string[]).includes(extension)) {
    check.fail('file', 'must be a .wav or .mp3 file', file.name);
    return;
  }
  if (file.bytes.length > limits.fileMaxBytes) {
    check.fail('file', `must be at most ${limits.fileMaxBytes} bytes`, measured(`${file.bytes.length} bytes`));
    return;
  }
  const durationMs = audioDurationMs(extension, file.bytes);
  if (durationMs === undefined) {
    check.fail('file', `must be a readable ${extension.slice(1).toUpperCase()} file`, file.name);
  } else if (durationMs > limits.fileMaxDurationMs) {
    check.fail(
      'file',
      `must be at most ${limits.fileMaxDurationMs / 1000} s long`,
      measured(secondsAgainst(durationMs, limits.fileMaxDurationMs)),
    );
  }
}

export function audioDurationMs(extension: string, bytes: Uint8Array): number | undefined {
  return extension === '.mp3' ? mp3DurationMs(bytes) : wavDurationMs(bytes);
}
