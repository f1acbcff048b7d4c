import { chatMediaKinds, effortEffective, isKnownModel, thinkingEffective, type Edition } from '../models.js';
import { Checker, isObject } from './checker.js';
import { checkModel } from './model.js';
import { checkEffort, checkMessageList, checkSampling, checkThinking } from './generation.js';

const ROLES = ['system', 'user', 'assistant'] as const;
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
      if (known && !media.includes(kind)) {
        const takers = kind === 'audio_url' ? 'Ming-3.0-audio-flash (edition B)' : 'Ling-3.0-flash-VL';
        check.fail(`${at}.type`, `${kind} blocks are accepted only by ${takers}, not by ${String(model)}`);
      }
    });
  });
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
  checkThinking(check, body.thinking);
  if (body.thinking !== undefined && typeof model === 'string' && !thinkingEffective(edition, model)) {
    check.warn(`thinking has no effect on ${model} in edition ${edition}`);
  }
  return check;
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
