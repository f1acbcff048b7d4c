import { chatMediaKinds, effortEffective, isKnownModel, type Edition } from '../models.js';
import { LIMITS } from '../limits.js';
import { Checker, isObject, measured } from './checker.js';
import { audioDurationMs } from './transcription.js';
import { checkModel } from './model.js';
import { checkEffort, checkMessageList, checkSampling, checkThinking } from './generation.js';

/** `tool` is beyond the published roles: the widely used form of a tool result, accepted with its `tool_call_id`. */
const ROLES = ['system', 'user', 'assistant', 'tool'] as const;
const PART_TYPES = ['text', 'image_url', 'video_url', 'audio_url'] as const;

/** What is wrong with a chat-completions request body, judged against one edition's catalogue. */
export function checkChatBody(input: unknown, edition: Edition): Checker {
  const check = new Checker();
  const body = check.objectBody(input);
  if (!body) return check;
  const model = body.model;
  checkModel(check, 'chat', edition, model);
  const known = typeof model === 'string' && isKnownModel(edition, 'chat', model);
  const media = typeof model === 'string' ? chatMediaKinds(edition, model) : [];
  checkMessageList(check, body.messages, ROLES, (field, content) => {
    if (typeof content === 'string' || content === null) return;
    if (!Array.isArray(content)) {
      check.fail(field, 'must be a string or an array of content parts', content);
      return;
    }
    content.forEach((part: unknown, j) => {
      const at = `${field}[${j}]`;
      if (!isObject(part)) {
        check.fail(at, 'must be a content part object', part);
        return;
      }
      if (part.type === undefined) {
        check.fail(`${at}.type`, `is required: one of ${PART_TYPES.join(', ')}`);
        return;
      }
      if (!check.oneOf(`${at}.type`, part.type, PART_TYPES)) return;
      if (part.type === 'text') {
        if (typeof part.text !== 'string') check.fail(`${at}.text`, 'must be a string', part.text);
        return;
      }
      const kind = part.type;
      const holder = part[kind];
      if (!isObject(holder) || typeof holder.url !== 'string' || holder.url.length === 0) {
        check.fail(`${at}.${kind}.url`, 'is required: an http(s) URL or a data URL', holder);
      }
      if (kind === 'audio_url' && isObject(holder) && typeof holder.url === 'string') {
        checkAudioDataUrl(check, `${at}.audio_url.url`, holder.url);
      }
      if (known && !media.includes(kind)) {
        const takers = kind === 'audio_url' ? 'Ming-3.0-audio-flash (edition B)' : 'Ling-3.0-flash-VL';
        check.fail(`${at}.type`, `${kind} blocks are accepted only by ${takers}, not by ${String(model)}`);
      }
    });
  });
  checkToolMessages(check, body.messages);
  checkSampling(check, body);
  checkChatTools(check, body.tools);
  check.optionalBoolean('enable_search', body.enable_search);
  if (body.search_options !== undefined && check.optionalObject('search_options', body.search_options)) {
    check.optionalBoolean('search_options.forced_search', body.search_options?.forced_search);
    if (body.enable_search !== true) check.warn('search_options takes effect only when enable_search is true');
  }
  checkEffort(check, 'reasoning', body.reasoning);
  if (body.reasoning !== undefined && typeof model === 'string' && !effortEffective(edition, model)) {
    check.warn(`reasoning.effort has no effect on ${model} in edition ${edition} (only Ring-2.6-1T, edition A)`);
  }
  checkThinking(check, body.thinking, model, edition);
  return check;
}

/** An audio block's data URL: a WAV or MP3 within the audio limits (a plain http(s) URL is the service's to fetch). */
function checkAudioDataUrl(check: Checker, field: string, url: string): void {
  if (!url.startsWith('data:')) return;
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  const limits = LIMITS.chatAudio;
  if (!match) {
    check.fail(field, 'a data URL must be data:<audio type>;base64,<data>', url.slice(0, 40));
    return;
  }
  const mime = (match[1] ?? '').toLowerCase();
  if (!check.oneOf(`${field} (media type)`, mime, limits.mimeTypes)) return;
  const bytes = Buffer.from(match[2] ?? '', 'base64');
  if (bytes.length > limits.maxBytes) {
    check.fail(field, `must be at most ${limits.maxBytes} bytes of audio`, measured(`${bytes.length} bytes`));
    return;
  }
  const durationMs = audioDurationMs(mime === 'audio/mpeg' ? '.mp3' : '.wav', bytes);
  if (durationMs === undefined) check.fail(field, `is not readable ${mime === 'audio/mpeg' ? 'MP3' : 'WAV'} audio`);
  else if (durationMs > limits.maxDurationMs) {
    check.fail(
      field,
      `must be at most ${limits.maxDurationMs / 1000} s of audio`,
      measured(`${(durationMs / 1000).toFixed(3)} s`),
    );
  }
}

/** A tool result names the call it answers, and that call was made by an assistant message before it. */
function checkToolMessages(check: Checker, messages: unknown): void {
  if (!Array.isArray(messages)) return;
  const called = new Set<string>();
  messages.forEach((message: unknown, i) => {
    if (!isObject(message)) return;
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls) if (isObject(call) && typeof call.id === 'string') called.add(call.id);
    }
    if (message.role !== 'tool') return;
    if (!check.requiredString(`messages[${i}].tool_call_id`, message.tool_call_id)) return;
    if (!called.has(message.tool_call_id)) {
      check.fail(
        `messages[${i}].tool_call_id`,
        'must name a tool call of an earlier assistant message',
        message.tool_call_id,
      );
    }
  });
}

function checkChatTools(check: Checker, tools: unknown): void {
  if (tools === undefined) return;
  if (!Array.isArray(tools)) {
    check.fail('tools', 'must be a list of function tool definitions', tools);
    return;
  }
  tools.forEach((tool: unknown, i) => {
    const at = `tools[${i}]`;
    if (!isObject(tool)) {
      check.fail(at, 'must be an object', tool);
      return;
    }
    if (tool.type !== 'function') check.fail(`${at}.type`, 'must be "function"', tool.type);
    const fn = tool.function;
    if (!isObject(fn)) {
      check.fail(`${at}.function`, 'is required: {name, description, parameters}', fn);
      return;
    }
    check.requiredString(`${at}.function.name`, fn.name);
    check.optionalString(`${at}.function.description`, fn.description);
    if (fn.parameters !== undefined && (!isObject(fn.parameters) || fn.parameters.type !== 'object')) {
      check.fail(`${at}.function.parameters`, 'must be a JSON-schema object with type "object"', fn.parameters);
    }
  });
}
